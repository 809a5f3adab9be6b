"""The retro writer fills a missing `references` list from the feature branch's git diff (spec 001 D9.4, AC 10).

Filling, keeping and reinforcing the stored references runs on both stores (`backend`); what git lists (no
branch, no git, git too slow, secret-shaped paths, the cap) is the same whatever stores it, so SQLite's only."""

from __future__ import annotations

import json
import os

import pytest

from memory_adapters.project.git_context_source import feature_branch_files
from memory_apps import writer
from memory_core.session.deadline import Deadline, MonotonicTicker
from tests._backend import Backend
from tests._helpers import git
from tests._learnings import learning

pytestmark = pytest.mark.slow

ENTRY = learning("Cap retry backoff",
                 "Cap the exponential backoff in retry.py so a dead provider fails within one session start.",
                 "Uncapped backoff made the hook wait 40 s on an outage.")
SECRET_PATH = "keys/ghp_abcdefghijklmnopqrstuvwxyz0123456789.txt"


@pytest.fixture(autouse=True)
def _isolated(tmp_path, isolated_home, monkeypatch):
    """No repository above tmp_path, no provider keys: the writer sees only the test's repository."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    for key in [k for k in os.environ if k.endswith("_API_KEY")]:
        monkeypatch.delenv(key)


def commit(project, files: dict, message: str) -> None:
    """Write (or, for None, delete) the files and commit them."""
    for name, text in files.items():
        path = project / name
        if text is None:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", message)


@pytest.fixture
def project(tmp_path):
    """main, then branch feature/retries changing two files and deleting one; main moves on after the branch."""
    root = tmp_path / "app"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    commit(root, {"README.md": "app\n", "src/retry.py": "DELAY = 1\n", "src/backoff.py": "CAP = None\n",
                  "src/old.py": "pass\n", "src/main_only.py": "A = 1\n"}, "start")
    git(root, "checkout", "-q", "-b", "feature/retries")
    commit(root, {"src/backoff.py": "CAP = 30\n", "src/retry.py": "DELAY = 2\n", "src/old.py": None}, "cap backoff")
    git(root, "checkout", "-q", "main")
    commit(root, {"src/main_only.py": "A = 2\n"}, "unrelated work on main")
    git(root, "checkout", "-q", "feature/retries")
    return root


def write(project, store, entry: dict, *flags: str) -> int:
    """The writer in process, as the retro calls it."""
    return writer.main(["--action", "upsert", "--global-store", str(store), "--project-root", str(project),
                        *flags, "--entry-json", json.dumps(entry)])


SQLITE = Backend("sqlite")


@pytest.fixture
def on_backend(backend, monkeypatch) -> Backend:
    """`backend` for the writer called in this process: its database URL in this process's environment."""
    for key, value in backend.env.items():
        monkeypatch.setenv(key, value)
    return backend


def stored_references(store, backend: Backend = SQLITE) -> list:
    return [json.loads(refs or "[]") for (refs,) in backend.rows(store, 'SELECT "references" FROM entries')]


def test_entry_without_references_gets_the_branch_files_mentioned_first(project, tmp_path, capsys, on_backend):
    store = tmp_path / "store"

    code = write(project, store, ENTRY)

    assert code == 0, capsys.readouterr().err
    # git lists backoff.py first; the entry names retry.py. Deleted and main-only files are not references.
    assert stored_references(store, on_backend) == [["src/retry.py", "src/backoff.py"]]


def test_empty_references_list_is_filled_too(project, tmp_path, capsys):
    store = tmp_path / "store"

    assert write(project, store, dict(ENTRY, references=[])) == 0, capsys.readouterr().err

    assert stored_references(store) == [["src/retry.py", "src/backoff.py"]]


def test_references_the_caller_gives_are_kept(project, tmp_path, capsys, on_backend):
    store = tmp_path / "store"

    assert write(project, store, dict(ENTRY, references=["docs/design.md"])) == 0, capsys.readouterr().err

    assert stored_references(store, on_backend) == [["docs/design.md"]]


def test_repeat_without_references_keeps_the_stored_ones(project, tmp_path, capsys, on_backend):
    store = tmp_path / "store"
    assert write(project, store, dict(ENTRY, references=["docs/design.md"])) == 0

    assert write(project, store, ENTRY) == 0, capsys.readouterr().err

    assert on_backend.rows(store, "SELECT observation_count FROM entries") == [(2,)]
    assert stored_references(store, on_backend) == [["docs/design.md"]]


def test_flag_turns_it_off(project, tmp_path, capsys):
    store = tmp_path / "store"

    assert write(project, store, ENTRY, "--no-references-from-git") == 0, capsys.readouterr().err

    assert stored_references(store) == [[]]


def test_secret_looking_path_is_left_out(project, tmp_path, capsys):
    commit(project, {SECRET_PATH: "x\n"}, "add a key file by mistake")
    store = tmp_path / "store"

    assert write(project, store, ENTRY) == 0, capsys.readouterr().err

    assert stored_references(store) == [["src/retry.py", "src/backoff.py"]]
    markdown = "".join(p.read_text(encoding="utf-8") for p in (project / "docs").rglob("*.md"))
    assert "src/retry.py" in markdown and "ghp_" not in markdown


def test_at_most_twenty_paths(project, tmp_path, capsys):
    commit(project, {f"src/generated/m{i:02}.py": f"{i}\n" for i in range(30)}, "generated modules")
    store = tmp_path / "store"

    assert write(project, store, ENTRY) == 0, capsys.readouterr().err

    [references] = stored_references(store)
    assert len(references) == writer.MAX_GIT_REFERENCES == 20
    assert references[0] == "src/retry.py"


def _plain(project, tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    return plain


def _detached(project, tmp_path):
    git(project, "checkout", "-q", "--detach")
    return project


def _on_main(project, tmp_path):
    git(project, "checkout", "-q", "main")
    return project


@pytest.mark.parametrize("where", [_plain, _detached, _on_main], ids=["not-git", "detached-head", "default-branch"])
def test_no_feature_branch_means_no_references_and_no_error(project, tmp_path, capsys, where):
    store = tmp_path / "store"

    code = write(where(project, tmp_path), store, ENTRY)

    err = capsys.readouterr().err
    assert code == 0, err
    assert stored_references(store) == [[]]
    assert "git" not in err


def test_missing_git_means_no_references(project, tmp_path, monkeypatch, capsys):
    empty = tmp_path / "no-tools"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    store = tmp_path / "store"

    code = write(project, store, ENTRY)

    assert code == 0, capsys.readouterr().err
    assert stored_references(store) == [[]]


def test_git_out_of_time_means_no_references_and_one_note(project, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(writer, "GIT_REFERENCES_TIMEOUT_S", 0.0)  # the deadline has passed before git starts
    store = tmp_path / "store"

    code = write(project, store, ENTRY)

    err = capsys.readouterr().err
    assert code == 0, err
    assert stored_references(store) == [[]]
    assert [line for line in err.splitlines() if "git" in line] == [
        "iflow-memory: git did not answer in time; no references from the branch's diff"]


def test_feature_branch_files_uses_the_merge_base_and_repository_paths(project):
    expired = Deadline(MonotonicTicker(), float("-inf"))

    assert feature_branch_files(str(project / "src")) == ["src/backoff.py", "src/retry.py"]
    assert feature_branch_files(str(project), expired) == []


def test_origin_head_names_the_default_branch(project):
    git(project, "branch", "-m", "main", "trunk")
    git(project, "update-ref", "refs/remotes/origin/trunk", "trunk")
    git(project, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk")

    assert feature_branch_files(str(project)) == ["src/backoff.py", "src/retry.py"]
