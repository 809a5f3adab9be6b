"""The global store is private: the directory 0700, every file in it 0600, however it was created."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tests._helpers import run_app, run_hook, upsert_args, write_settings

pytestmark = pytest.mark.slow


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_global_store_is_private(credential_layout):
    home, project, store = credential_layout
    bank = project / "docs" / "knowledge-bank"
    bank.mkdir(parents=True)
    (bank / "heuristics.md").write_text("### Keep files private\nNotes can hold sensitive context.\n"
                                        "- Observation count: 2\n", encoding="utf-8")
    entry = {"name": "Private by default", "description": "Create user data files readable by their owner only.",
             "category": "patterns"}
    steps = [
        run_app("memory_apps.writer", upsert_args(store, project, entry), home),
        run_app("memory_apps.injector", ["--project-root", project, "--global-store", store], home),
        run_hook(project, store, home),
        run_app("memory_apps.cli", ["embed", "--project-root", project, "--global-store", store], home),
    ]
    for result in steps:
        assert result.returncode == 0, result.stderr

    assert _mode(store) == 0o700
    files = [p for p in store.rglob("*") if p.is_file()]
    names = {p.name for p in files}
    assert {"memory.db", ".last-injection.json", "patterns.md"} <= names
    assert {str(p.relative_to(store)): oct(_mode(p)) for p in files if _mode(p) != 0o600} == {}


def test_markdown_only_mode_creates_a_private_global_store(credential_layout):
    """memory_semantic_enabled: false still creates the store (tracking file) and must keep it private."""
    home, project, store = credential_layout
    bank = project / "docs" / "knowledge-bank"
    bank.mkdir(parents=True)
    (bank / "patterns.md").write_text("### Pattern: Private\nKeep notes private.\n- Observation count: 1\n",
                                      encoding="utf-8")
    write_settings(project, semantic_enabled=False)

    result = run_app("memory_apps.injector", ["--project-root", project, "--global-store", store], home)

    assert result.returncode == 0 and result.stdout, result.stderr
    assert (store / ".last-injection.json").exists()
    assert oct(_mode(store / ".last-injection.json")) == oct(0o600)
    assert oct(_mode(store)) == oct(0o700), "the global store directory is private however it was created"


def _loosen(store: Path) -> None:
    """The store as an older version (or the reference program) left it: 0755 directories, 0644 files."""
    for path in [store, *store.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)


@pytest.mark.parametrize("first_run", ["write", "session start"])
def test_an_upgraders_readable_store_is_made_private_once(credential_layout, first_run):
    home, project, store = credential_layout
    entry = {"name": "Private by default", "description": "Upgraded stores become private too.",
             "category": "patterns"}
    assert run_app("memory_apps.writer", upsert_args(store, project, entry), home).returncode == 0
    assert run_hook(project, store, home).returncode == 0
    _loosen(store)
    (store / "notes-of-mine.txt").write_text("the user's own file\n", encoding="utf-8")
    (store / "notes-of-mine.txt").chmod(0o644)
    secret = home / "elsewhere.md"
    secret.write_text("a file the store links to\n", encoding="utf-8")
    secret.chmod(0o644)
    (store / "heuristics.md").symlink_to(secret)

    if first_run == "write":
        result = run_app("memory_apps.writer", upsert_args(store, project, {**entry, "name": "Again"}), home)
    else:
        result = run_hook(project, store, home)
    again = run_app("memory_apps.writer", upsert_args(store, project, {**entry, "description": "Once is enough."}),
                    home)

    assert result.returncode == 0 and again.returncode == 0, (result.stderr, again.stderr)
    notices = [line for line in result.stderr.splitlines() if "made the memory store" in line]
    assert notices == [f"iflow-memory: made the memory store {store} private (0755 -> 0700, 0644 -> 0600): other "
                       "users could read your learnings there"], result.stderr
    assert "made the memory store" not in result.stdout, "a hook's stdout is its answer"
    assert "made the memory store" not in again.stderr, "once"
    assert _mode(store) == 0o700
    owned = {str(p.relative_to(store)): _mode(p) for p in store.rglob("*") if not p.is_symlink()}
    assert owned.pop("notes-of-mine.txt") == 0o644, "a file the product does not own is left alone"
    assert {"patterns.md", ".last-injection.json", "memory.db", "memory.db.vectors", "snapshots"} <= set(owned)
    assert {name: oct(mode) for name, mode in owned.items()
            if mode != (0o700 if (store / name).is_dir() else 0o600)} == {}
    assert _mode(secret) == 0o644, "a link is never followed"


def test_reads_leave_an_upgraders_store_as_it_is_and_the_next_write_makes_it_private(credential_layout):
    """`list` and `search` write nothing, permissions included; `delete` (a write through the library) does."""
    home, project, store = credential_layout
    entries = [{"name": f"Private {n}", "description": f"Upgraded stores become private, case {n}.",
                "category": "patterns"} for n in (1, 2)]
    for entry in entries:
        assert run_app("memory_apps.writer", upsert_args(store, project, entry), home).returncode == 0
    _loosen(store)
    where = ["--project-root", project, "--global-store", store]

    reads = [run_app("memory_apps.cli", ["list", *where], home),
             run_app("memory_apps.cli", ["search", "upgraded stores", *where], home)]

    assert [r.returncode for r in reads] == [0, 0], [r.stderr for r in reads]
    assert not any("made the memory store" in r.stderr for r in reads)
    assert (_mode(store), _mode(store / "patterns.md")) == (0o755, 0o644), "a read changes nothing"
    entry_id = next(line.split()[0] for line in reads[0].stdout.splitlines() if "Private 1" in line)
    deleted = run_app("memory_apps.cli", ["delete", entry_id, *where], home)
    assert deleted.returncode == 0, deleted.stderr
    assert "made the memory store" in deleted.stderr
    assert (_mode(store), _mode(store / "patterns.md")) == (0o700, 0o600)
