"""A deleted `memory.db-wal`: commits that lived only there are lost to the database, but the markdown audit trail
still holds them. The next write, `maintain` or session start notices (the markdown's watermark is ahead of the
database) and brings them back from the markdown, ids and all, and a delete that was lost stays done."""

from __future__ import annotations

import json
import re
import signal
import subprocess
from pathlib import Path

import pytest

from tests._helpers import PYTHON, app_env, db_rows, run_app, upsert_args, write_settings

pytestmark = pytest.mark.slow

HOLDER = ("import sqlite3, sys\n"
          "conn = sqlite3.connect(sys.argv[1])\n"
          "conn.execute('SELECT count(*) FROM entries').fetchall()\n"
          "print('held', flush=True)\n"
          "sys.stdin.read()\n")


def _entry(n: int) -> dict:
    return {"name": f"Learning {n}", "description": f"Learning number {n} about write-ahead logs that vanish.",
            "reasoning": f"Seen {n} times in the attack suite.", "keywords": ["wal", f"case-{n}"],
            "category": "patterns"}


def _write(store: Path, project: Path, home: Path, n: int) -> str:
    result = run_app("memory_apps.writer", upsert_args(store, project, _entry(n)), home)
    assert result.returncode == 0, result.stderr
    return re.search(r"id: ([0-9a-f]{16})", result.stdout).group(1)


def _markdown_ids(store: Path) -> set[str]:
    return set(re.findall(r"Content-Hash: sha256:([0-9a-f]{16})", (store / "patterns.md").read_text("utf-8")))


def _stored(store: Path) -> dict[str, tuple]:
    """The fields an import rebuilds from markdown (ADR 15), by id."""
    rows = db_rows(store / "memory.db", "SELECT id, name, description, reasoning, category, keywords, \"references\", "
                                        "observation_count, confidence FROM entries")
    return {row[0]: row[1:] for row in rows}


def _lose_the_wal(store: Path, project: Path, home: Path) -> tuple[dict[str, tuple], str]:
    """Write while another connection keeps the database open (so the commits stay in the WAL), delete one entry
    written before, then delete the WAL and its index and kill that connection: the entries the lost commits
    wrote (as stored), and the id whose delete was lost."""
    deleted = _write(store, project, home, 0)
    kept = _write(store, project, home, 1)
    holder = subprocess.Popen([PYTHON, "-c", HOLDER, str(store / "memory.db")], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env=app_env(home))
    try:
        assert holder.stdout.readline().strip() == "held"
        written = {_write(store, project, home, n) for n in (2, 3, 4)}
        result = run_app("memory_apps.cli", ["delete", deleted, "--project-root", project, "--global-store", store],
                         home)
        assert result.returncode == 0, result.stderr
        assert (store / "memory.db-wal").stat().st_size > 0, "the commits are in the WAL, not yet checkpointed"
        before = _stored(store)
        (store / "memory.db-wal").unlink()
        (store / "memory.db-shm").unlink()
    finally:
        holder.send_signal(signal.SIGKILL)  # no clean close: nothing checkpoints the deleted log back
        holder.communicate(timeout=60)
    assert set(_stored(store)) == {deleted, kept}, "the database lost the commits that were only in the WAL"
    assert _markdown_ids(store) == written | {kept} == set(before)
    return {key: before[key] for key in written}, deleted


def _session_start(store: Path, project: Path, home: Path) -> subprocess.CompletedProcess:
    return run_app("memory_apps.cli", ["hook", "session-start", "--global-store", store], home,
                   stdin=json.dumps({"source": "startup", "cwd": str(project)}),
                   env={"IFLOW_MEMORY_SESSION_DEADLINE_S": "60"})


@pytest.mark.parametrize("later", ["write", "maintain", "session start"])
def test_entries_only_in_a_deleted_wal_come_back_from_the_markdown(tmp_path, later):
    home, project, store = tmp_path / "home", tmp_path / "proj", tmp_path / "G"
    home.mkdir()
    write_settings(project, embedding_provider="none", keyword_provider="local")
    written, deleted = _lose_the_wal(store, project, home)

    if later == "write":
        _write(store, project, home, 5)
    elif later == "maintain":
        result = run_app("memory_apps.cli", ["maintain", "--project-root", project, "--global-store", store], home)
        assert result.returncode == 0, result.stderr
    else:
        result = _session_start(store, project, home)
        assert result.returncode == 0, result.stderr
        context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
        assert all(f"Learning {n}" in context for n in (1, 2, 3, 4)), context
        assert "Learning 0" not in context, "the lost delete stays done"

    stored = _stored(store)
    assert set(stored) == _markdown_ids(store), "the database holds what the markdown holds"
    assert deleted not in stored, "the lost delete stays done"
    assert {key: stored[key] for key in written} == written, "every lost entry is back, the same, under its id"


def test_a_later_write_numbers_after_the_markdown_so_nothing_is_imported_twice(tmp_path):
    home, project, store = tmp_path / "home", tmp_path / "proj", tmp_path / "G"
    home.mkdir()
    write_settings(project, embedding_provider="none", keyword_provider="local")
    _lose_the_wal(store, project, home)
    first = run_app("memory_apps.writer", upsert_args(store, project, _entry(5)), home)
    assert "imported 3 entries from markdown" in first.stderr, first.stderr

    second = run_app("memory_apps.writer", upsert_args(store, project, _entry(6)), home)

    assert second.returncode == 0 and "imported" not in second.stderr, second.stderr
    assert set(_stored(store)) == _markdown_ids(store)


def test_a_lost_write_in_another_projects_bank_comes_back_at_that_projects_next_session(tmp_path):
    home, project, other, store = tmp_path / "home", tmp_path / "proj", tmp_path / "other", tmp_path / "G"
    home.mkdir()
    for root in (project, other):
        write_settings(root, embedding_provider="none", keyword_provider="local")
    assert _session_start(store, other, home).returncode == 0  # the other project's bank counts as imported
    _write(store, project, home, 0)  # the last connection to close checkpoints: the marker is in memory.db
    holder = subprocess.Popen([PYTHON, "-c", HOLDER, str(store / "memory.db")], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env=app_env(home))
    try:
        assert holder.stdout.readline().strip() == "held"
        result = run_app("memory_apps.writer", upsert_args(store, other, {**_entry(7), "source_project": "other"}),
                         home)
        assert result.returncode == 0, result.stderr
        lost = re.search(r"id: ([0-9a-f]{16})", result.stdout).group(1)
        (store / "memory.db-wal").unlink()
        (store / "memory.db-shm").unlink()
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.communicate(timeout=60)
    assert lost not in _stored(store)
    _write(store, project, home, 8)  # the loss is noticed here, in a project whose bank does not hold the entry

    result = _session_start(store, other, home)

    assert result.returncode == 0, result.stderr
    assert lost in _stored(store), "the other project's bank was read again"


LIBRARY_WRITES = ("import sys\n"
                  "from memory_apps.service import MemoryService\n"
                  "service = MemoryService(sys.argv[1], sys.argv[2])\n"
                  "for n in range(5, 9):\n"
                  "    service.remember(f'Library learning {n}', f'Learning {n}, written through the library.')\n")


@pytest.mark.parametrize("writer", ["library", "cli promote"])
def test_writes_that_open_the_store_for_reading_do_not_hide_the_loss(tmp_path, writer):
    """The library, the MCP server and `delete`/`promote` open the store as a read does: four such writes would
    number past the markdown's watermark, and the lost entries would never come back."""
    home, project, store = tmp_path / "home", tmp_path / "proj", tmp_path / "G"
    home.mkdir()
    write_settings(project, embedding_provider="none", keyword_provider="local")
    written, deleted = _lose_the_wal(store, project, home)
    kept = (set(_stored(store)) - {deleted}).pop()

    if writer == "library":
        result = subprocess.run([PYTHON, "-c", LIBRARY_WRITES, str(store), str(project)], env=app_env(home),
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
    else:
        for _ in range(4):
            result = run_app("memory_apps.cli", ["promote", kept, "--project-root", project, "--global-store", store],
                             home)
            assert result.returncode == 0, result.stderr
    result = _session_start(store, project, home)

    assert result.returncode == 0, result.stderr
    stored = _stored(store)
    assert {key: stored.get(key) for key in written} == written, "every lost entry is back, the same, under its id"
    assert deleted not in stored, "the lost delete stays done"
    assert set(stored) == _markdown_ids(store)


def test_the_loss_is_caught_up_even_where_git_cannot_judge_the_bank(tmp_path):
    """A git that cannot name a bank's authors (missing, a shim that fails, "dubious ownership") leaves the bank's
    import unmarked, but the lost commits are back: the database is no longer behind, so later writes and imports
    do not read every project's bank again."""
    home, project, store = tmp_path / "home", tmp_path / "proj", tmp_path / "G"
    home.mkdir()
    write_settings(project, embedding_provider="none", keyword_provider="local")
    written, _ = _lose_the_wal(store, project, home)
    (project / "docs" / "knowledge-bank").mkdir(parents=True, exist_ok=True)  # a bank arrives after the loss
    (project / "docs" / "knowledge-bank" / "heuristics.md").write_text(
        "# Heuristics\n\n### Test first\nRun the unit tests before every commit.\n", encoding="utf-8")
    (project / ".git").mkdir()  # a repository git cannot read: authorship stays unknown
    broken = tmp_path / "bin"
    broken.mkdir()
    (broken / "git").write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
    (broken / "git").chmod(0o755)

    result = run_app("memory_apps.cli", ["hook", "session-start", "--global-store", store], home,
                     stdin=json.dumps({"source": "startup", "cwd": str(project)}),
                     env={"IFLOW_MEMORY_SESSION_DEADLINE_S": "60", "PATH": f"{broken}:/usr/bin:/bin"})

    assert result.returncode == 0, result.stderr
    assert set(written) <= set(_stored(store)), "the lost entries are back"
    from memory_adapters.store.sqlite.store import SqliteEntryStore

    opened = SqliteEntryStore(str(store / "memory.db"))
    try:
        assert not opened.markdown_ahead(), "caught up: the database no longer counts as behind its markdown"
    finally:
        opened.close()
