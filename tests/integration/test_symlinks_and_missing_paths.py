"""Files are never written through a symbolic link, exports are private, and only writes create a store.

Issue 11, items 9 and 11, as a user meets them: a project whose bank file or `.mcp.json` is a link to a
secret, a `.verified` marker that is a link, and read-only commands pointed at a store that is not there.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from memory_core.entries.hashing import content_hash
from tests._helpers import db_rows, run_in_process, run_module, write_settings

pytestmark = pytest.mark.slow

KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAAfakeKeyForTests\n-----END OPENSSH PRIVATE KEY-----\n"
DOCKER = '{"auths": {"registry.example.invalid": {"auth": "ZmFrZTpjcmVkZW50aWFscw=="}}}\n'
ENTRY = {"name": "Pin the base image", "description": "Pin the container base image by digest, not by tag.",
         "reasoning": "A retagged image changed the libc under a release.", "category": "patterns"}


@pytest.fixture
def home(tmp_path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


def secret(home: Path, relative: str, text: str) -> Path:
    """A secrets-bearing file under the fake HOME."""
    path = home / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(0o600)
    return path


def cli(home: Path, *args, cwd: Path = None):
    """`iflow-memory ARGS` in-process, with `home` as HOME."""
    return run_in_process("memory_apps.cli", list(args), home, cwd=cwd)


def files_under(root: Path) -> dict[str, str]:
    """Every regular file (links not followed) and its text."""
    return {str(p): p.read_bytes().decode("utf-8", "ignore") for p in root.rglob("*")
            if p.is_file() and not p.is_symlink()}


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


# -- item 9: links are never written through ---------------------------------------------------------------------

@pytest.mark.parametrize("semantic", [True, False], ids=["database", "markdown-only"])
def test_a_bank_file_linked_to_a_private_key_is_left_alone(tmp_path, home, project, semantic):
    key = secret(home, ".ssh/id_rsa", KEY)
    bank = project / "docs" / "knowledge-bank"
    bank.mkdir(parents=True)
    (bank / "patterns.md").symlink_to(key)
    if not semantic:
        write_settings(project, semantic_enabled=False)
    store = tmp_path / "store"

    result = cli(home, "write", "--project-root", project, "--global-store", store, "--entry-json", json.dumps(ENTRY))

    assert (bank / "patterns.md").is_symlink() and os.readlink(bank / "patterns.md") == str(key)
    assert key.read_text(encoding="utf-8") == KEY and mode(key) == 0o600
    assert "symbolic link" in result.stderr and str(bank / "patterns.md") in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    leaked = [p for p, text in {**files_under(project), **files_under(store)}.items() if "fakeKeyForTests" in text]
    assert leaked == [], "the key was copied into a regular file"
    if semantic:
        assert result.returncode == 0, result.stderr
        assert db_rows(store / "memory.db", "SELECT id FROM entries") == [(content_hash(ENTRY["description"]),)]
    else:
        assert result.returncode == 2, "markdown is the only copy in this mode: the write failed"


@pytest.mark.parametrize("linked", [".mcp.json", ".claude/settings.json"])
def test_install_claude_refuses_a_linked_config_file(home, project, linked):
    docker = secret(home, ".docker/config.json", DOCKER)
    link = project / linked
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(docker)

    result = cli(home, "install-claude", "--project", project, "--scope", "project", cwd=project)

    assert result.returncode == 1
    assert "symbolic link" in result.stderr and str(link) in result.stderr, result.stderr
    assert link.is_symlink() and docker.read_text(encoding="utf-8") == DOCKER and mode(docker) == 0o600
    assert [p for p, text in files_under(project).items() if "ZmFrZTpjcmVkZW50aWFscw" in text] == []
    assert sorted(p.name for p in project.rglob("*") if ".bak-" in p.name or ".tmp-" in p.name) == []
    assert [p for p in files_under(project)] == [], "nothing is written when one of the two files is refused"


def test_install_claude_backups_are_private_and_outside_the_project(home, project):
    (project / ".mcp.json").write_text('{"mcpServers": {"db": {"command": "db-mcp", "env": {"TOKEN": "t0k"}}}}\n',
                                       encoding="utf-8")
    (project / ".mcp.json").chmod(0o644)

    result = cli(home, "install-claude", "--project", project, "--scope", "project", cwd=project)

    assert result.returncode == 0, result.stderr
    assert [p.name for p in project.rglob("*") if ".bak" in p.name] == [], "no backup in the repository"
    backups = list((home / ".cache" / "iflow-memory" / "install-claude-backups").rglob("*mcp.json*"))
    assert len(backups) == 1 and mode(backups[0]) == 0o600
    assert "t0k" in backups[0].read_text(encoding="utf-8"), "the backup is the previous text"
    assert mode(project / ".mcp.json") == 0o644, "a rewritten file keeps its mode"


def _written_store(tmp_path, home, project):
    """A store that one `write` created, holding ENTRY."""
    store = tmp_path / "store"
    assert cli(home, "write", "--project-root", project, "--global-store", store,
               "--entry-json", json.dumps(ENTRY)).returncode == 0
    return store


def test_a_linked_verified_marker_does_not_truncate_its_target(tmp_path, home, project):
    store = _written_store(tmp_path, home, project)
    victim = secret(home, "notes.txt", "keep me\n")
    marker = store / "memory.db.verified"
    if marker.exists():
        marker.unlink()
    marker.symlink_to(victim)

    listed = cli(home, "list", "--project-root", project, "--global-store", store)

    assert listed.returncode == 0, listed.stderr
    assert victim.read_text(encoding="utf-8") == "keep me\n"
    assert marker.is_symlink()


def test_export_files_and_directory_are_private(tmp_path, home, project):
    store = _written_store(tmp_path, home, project)
    output = tmp_path / "backup" / "bank"

    result = cli(home, "export", "--output", output, "--project-root", project, "--global-store", store)

    assert result.returncode == 0, result.stderr
    assert mode(output) == 0o700
    written = sorted(output.iterdir())
    assert [p.name for p in written] == ["anti-patterns.md", "entry-history.md", "heuristics.md", "patterns.md"]
    assert {mode(p) for p in written} == {0o600}


def test_export_refuses_a_linked_history_file_before_writing_anything(tmp_path, home, project):
    store = _written_store(tmp_path, home, project)
    victim = secret(home, "notes.txt", "keep me\n")
    output = tmp_path / "out"
    output.mkdir()
    (output / "entry-history.md").symlink_to(victim)

    result = cli(home, "export", "--output", output, "--project-root", project, "--global-store", store)

    assert result.returncode == 1 and "symbolic link" in result.stderr, result.stderr
    assert victim.read_text(encoding="utf-8") == "keep me\n"
    assert sorted(p.name for p in output.iterdir()) == ["entry-history.md"]


def test_export_refuses_a_linked_output_file(tmp_path, home, project):
    store = _written_store(tmp_path, home, project)
    victim = secret(home, "notes.txt", "keep me\n")
    output = tmp_path / "out"
    output.mkdir()
    (output / "patterns.md").symlink_to(victim)

    result = cli(home, "export", "--output", output, "--project-root", project, "--global-store", store)

    assert result.returncode == 1
    assert "symbolic link" in result.stderr and str(output / "patterns.md") in result.stderr, result.stderr
    assert victim.read_text(encoding="utf-8") == "keep me\n" and (output / "patterns.md").is_symlink()


# -- item 11: only writes create a store ------------------------------------------------------------------------

READ_ONLY = [["list"], ["stats"], ["show", "0123456789abcdef"], ["search", "base image"], ["doctor"],
             ["export", "--output", "OUT"], ["delete", "0123456789abcdef"], ["embed"], ["maintain"]]


@pytest.mark.parametrize("command", READ_ONLY, ids=[c[0] for c in READ_ONLY])
def test_commands_that_only_read_never_create_a_store(tmp_path, home, project, command):
    bank = project / "docs" / "knowledge-bank"
    bank.mkdir(parents=True)
    (bank / "patterns.md").write_text("### Pattern: Keep it\nSomething worth keeping.\n", encoding="utf-8")
    typo = tmp_path / "typo" / "store"
    args = [str(tmp_path / "out") if a == "OUT" else a for a in command]

    result = cli(home, *args, "--global-store", typo, cwd=project)

    assert result.returncode == 1, (result.stdout, result.stderr)
    assert str(typo) in result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "typo").exists(), "no store was created"
    assert not (tmp_path / "out").exists(), "no export directory without a store"
    assert not (home / ".claude").exists()


def test_write_with_a_missing_project_directory_fails_and_creates_nothing(tmp_path, home):
    missing = tmp_path / "no-such-project"
    store = tmp_path / "store"

    result = cli(home, "write", "--project-root", missing, "--global-store", store, "--entry-json", json.dumps(ENTRY))

    assert result.returncode == 1
    assert str(missing) in result.stderr and "Traceback" not in result.stderr
    assert not missing.exists() and not store.exists()


def test_install_claude_with_a_missing_project_fails_and_creates_nothing(tmp_path, home):
    missing = tmp_path / "no-such-project"

    result = cli(home, "install-claude", "--project", missing, cwd=tmp_path)

    assert result.returncode == 1
    assert str(missing) in result.stderr and "Traceback" not in result.stderr
    assert not missing.exists()


def test_a_write_creates_a_new_store(tmp_path, home, project):
    store = tmp_path / "new" / "store"

    result = cli(home, "write", "--project-root", project, "--global-store", store, "--entry-json", json.dumps(ENTRY))

    assert result.returncode == 0, result.stderr
    assert (store / "memory.db").is_file() and mode(store) == 0o700


def test_a_store_directory_without_its_database_is_rebuilt_by_a_reader(tmp_path, home, project):
    store = _written_store(tmp_path, home, project)
    for name in ("memory.db", "memory.db-wal", "memory.db-shm", "memory.db.verified"):
        if (store / name).exists():
            (store / name).unlink()

    listed = cli(home, "list", "--json", "--project-root", project, "--global-store", store)

    assert listed.returncode == 0, listed.stderr
    assert [e["id"] for e in json.loads(listed.stdout)] == [content_hash(ENTRY["description"])]


def test_inject_still_creates_a_missing_store_on_first_use(tmp_path, home, project):
    """The reference hook line passes the default store explicitly: the first session start must create it."""
    store = home / ".claude" / "iflow" / "memory"

    result = run_module("memory_apps.cli", ["inject", "--project-root", project, "--global-store", store], home)

    assert result.returncode == 0
    assert (store / "memory.db").is_file()
