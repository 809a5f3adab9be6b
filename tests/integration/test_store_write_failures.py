"""Writes that cannot finish: a process killed mid-write, a full disk, a read-only store and a store path that
cannot be opened leave every earlier entry intact and say why in one line, never a traceback."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import textwrap
from pathlib import Path

import pytest

from tests._helpers import PYTHON, TIMEOUT_S, app_env, db_rows, run_app, upsert_args

pytestmark = pytest.mark.slow

CATEGORIES = ("anti-patterns", "heuristics", "patterns")


# -- a writer killed mid-write ---------------------------------------------------------------------------------
KILLED_WRITER = textwrap.dedent("""
    import sys
    from datetime import datetime, timezone
    from memory_adapters.store.sqlite.store import SqliteEntryStore
    from memory_core.entries.models import EntryDraft

    store = SqliteEntryStore(sys.argv[1])
    drafts = [EntryDraft(name=f"Loop entry {i}", description=f"Loop entry number {i}: " + "filler text " * 200,
                         reasoning="r" * 4000, category="patterns", source="retro") for i in range(10)]
    print("ready", flush=True)
    n = 0
    while True:
        store.upsert(drafts[n % 10], datetime.now(timezone.utc))
        store.record_recall([drafts[n % 10].entry_id], datetime.now(timezone.utc))
        n += 1
        print(n, flush=True)
""")


def test_process_killed_mid_write_leaves_a_consistent_database(tmp_path):
    db = tmp_path / "store" / "memory.db"
    script = tmp_path / "loop.py"
    script.write_text(KILLED_WRITER, encoding="utf-8")
    process = subprocess.Popen([PYTHON, str(script), str(db)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=app_env(tmp_path))
    seen = []
    try:
        assert process.stdout.readline().strip() == "ready", process.stderr.read()
        while len(seen) < 3:  # killed once it has committed a few iterations, however long they took
            line = process.stdout.readline()
            assert line, f"the loop ended before the kill: {process.stderr.read()}"
            seen.append(line)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=TIMEOUT_S)
        # read through the same buffered streams (communicate would skip what readline already buffered)
        out, err = process.stdout.read(), process.stderr.read()
        process.stdout.close()
        process.stderr.close()
    assert process.returncode == -signal.SIGKILL
    committed = [int(line) for line in "".join(seen + [out]).split() if line.isdigit()]
    assert committed, f"the loop committed nothing before the kill: {err}"
    last = committed[-1]

    conn = sqlite3.connect(str(db))  # a normal open replays or discards the WAL
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        conn.execute("INSERT INTO entries_fts(entries_fts) VALUES ('integrity-check')")
        observations, recalls, rows = conn.execute(
            "SELECT SUM(observation_count), SUM(recall_count), COUNT(*) FROM entries").fetchone()
    finally:
        conn.close()
    # Each loop iteration is one upsert then one recall, each its own transaction: the database holds every
    # iteration reported as done, plus at most the parts of the next one that committed before the kill.
    assert last <= observations <= last + 1
    assert observations - 1 <= recalls <= observations
    assert rows == min(observations, 10)

    from memory_adapters.store.sqlite.store import SqliteEntryStore

    store = SqliteEntryStore(str(db), full_check=True)
    try:
        assert db_rows(db, "PRAGMA integrity_check") == [("ok",)]
        assert store.count() == rows == len(store.all_entries())
        assert sum(e.observation_count for e in store.all_entries()) == observations
    finally:
        store.close()


# -- no space left, read-only and unusable store paths -----------------------------------------------------------
def _drafts(n: int):
    from memory_core.entries.models import EntryDraft

    return [EntryDraft(name=f"Kept {i}", description=f"Entry {i} stored before the disk filled up.",
                       category=CATEGORIES[i % 3]) for i in range(n)]


def test_full_disk_raises_a_clear_storage_error_and_keeps_earlier_entries(tmp_path):
    from datetime import datetime, timezone

    from memory_adapters.store.sqlite.store import SqliteEntryStore
    from memory_core.errors import StorageError
    from memory_core.entries.models import EntryDraft

    path = str(tmp_path / "store" / "memory.db")
    store = SqliteEntryStore(path)
    now = datetime.now(timezone.utc)
    kept = _drafts(5)
    for draft in kept:
        store.upsert(draft, now)
    with store.connection.locked() as conn:
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count={pages}")  # SQLITE_FULL on the next page the file needs
    big = EntryDraft(name="Too big", description="a long description " * 1000, reasoning="why " * 4000,
                     category="patterns")

    with pytest.raises(StorageError) as raised:
        store.upsert(big, now)

    assert "disk is full" in str(raised.value)
    assert "Traceback" not in str(raised.value)
    assert store.count() == 5
    assert [store.get(d.entry_id).name for d in kept] == [d.name for d in kept]
    assert store.get(big.entry_id) is None
    store.close()
    reopened = SqliteEntryStore(path, full_check=True)
    assert db_rows(Path(path), "PRAGMA integrity_check") == [("ok",)] and reopened.count() == 5
    reopened.close()


def _writer_in_process(args: list[str], capsys) -> tuple[int, str, str]:
    from memory_apps import writer

    try:
        code = writer.main(args)
    except SystemExit as exc:
        code = exc.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _project_with_settings(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "iflow-dev.local.md").write_text(
        "memory_embedding_provider: none\nmemory_keyword_provider: local\n", encoding="utf-8")
    return project


def _simulate_on_every_connection(monkeypatch, pragma_for) -> None:
    """Run one extra PRAGMA on each connection the store opens (how a test makes SQLite full or read-only)."""
    from memory_adapters.store.sqlite.connection import SqliteConnection

    original = SqliteConnection._configure

    def configure(self) -> None:
        original(self)
        self._conn.execute(pragma_for(self._conn))

    monkeypatch.setattr(SqliteConnection, "_configure", configure)


def _stored(store: Path) -> list[tuple]:
    return db_rows(store / "memory.db", "SELECT id, name, observation_count FROM entries ORDER BY id")


def test_writer_on_a_full_disk_exits_2_and_loses_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    project = _project_with_settings(tmp_path)
    store = tmp_path / "G"
    for n in range(3):
        code, _, err = _writer_in_process(upsert_args(store, project, {
            "name": f"Earlier {n}", "description": f"Earlier learning {n} about full disks.", "category": "patterns"}),
            capsys)
        assert code == 0, err
    before = _stored(store)
    markdown_before = (store / "patterns.md").read_bytes()
    _simulate_on_every_connection(
        monkeypatch, lambda conn: f"PRAGMA max_page_count={conn.execute('PRAGMA page_count').fetchone()[0]}")

    code, out, err = _writer_in_process(upsert_args(store, project, {
        "name": "Huge", "description": "x" * 19_000, "reasoning": "y " * 9_000, "category": "patterns"}), capsys)

    assert code == 2, (out, err)
    assert "disk is full" in err, err
    assert out == ""
    assert "Traceback" not in err
    monkeypatch.undo()
    assert _stored(store) == before
    assert (store / "patterns.md").read_bytes() == markdown_before


def test_writer_on_a_read_only_store_exits_2_and_loses_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    project = _project_with_settings(tmp_path)
    store = tmp_path / "G"
    code, _, err = _writer_in_process(upsert_args(store, project, {
        "name": "Earlier", "description": "Stored before the directory became read-only.", "category": "patterns"}),
        capsys)
    assert code == 0, err
    before = _stored(store)
    entry = {"name": "Refused", "description": "This write meets a read-only store.", "category": "patterns"}
    if os.geteuid() != 0:
        # A real read-only directory and file.
        os.chmod(store / "memory.db", 0o400)
        os.chmod(store, 0o500)
        try:
            result = run_app("memory_apps.writer", upsert_args(store, project, entry), tmp_path, process=True)
        finally:
            os.chmod(store, 0o700)
            os.chmod(store / "memory.db", 0o600)
        code, out, err = result.returncode, result.stdout, result.stderr
    else:
        # chmod does not stop root: make SQLite itself refuse writes (what a read-only file gives).
        _simulate_on_every_connection(monkeypatch, lambda conn: "PRAGMA query_only=ON")
        code, out, err = _writer_in_process(upsert_args(store, project, entry), capsys)
        monkeypatch.undo()

    assert code == 2, (out, err)
    assert "read-only" in err or "readonly" in err, err
    assert "Traceback" not in err
    assert out == ""
    assert _stored(store) == before, "nothing already stored is lost"


def test_unusable_store_path_exits_2_with_the_reason(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a regular file\n", encoding="utf-8")
    project = tmp_path / "proj"
    project.mkdir()

    entry = {"name": "Check the store path", "description": "A store path under a regular file cannot be opened.",
             "category": "patterns"}

    result = run_app("memory_apps.writer", upsert_args(blocker / "store", project, entry), home)

    assert result.returncode == 2, result.stderr
    assert "Not a directory" in result.stderr, result.stderr
    assert "moved it to" not in result.stderr, "a path that cannot be opened is not a corrupt database"
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    assert blocker.read_text(encoding="utf-8") == "a regular file\n"


# -- a read-only store directory ---------------------------------------------------------------------------------
PR_CAPBSET_DROP = 24
ROOT_FILE_POWERS = (1, 2)  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH: what lets root write where modes say no


def _as_a_user_whom_modes_bind() -> None:
    """In the child, before exec: drop root's power to ignore file modes (a no-op for other users), so a
    read-only directory is read-only for the writer whoever runs the suite."""
    import ctypes

    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in ROOT_FILE_POWERS:
        if libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _writer_in_read_only_store(store: Path, project: Path, home: Path, entry: dict) -> subprocess.CompletedProcess:
    os.chmod(store, 0o500)
    try:
        return subprocess.run([PYTHON, "-m", "memory_apps.writer", *upsert_args(store, project, entry)],
                              env=app_env(home), cwd=str(home), capture_output=True, text=True, timeout=60,
                              preexec_fn=_as_a_user_whom_modes_bind)
    except subprocess.SubprocessError as exc:
        pytest.skip(f"root without CAP_SETPCAP cannot give up its power over file modes here: {exc}")
    finally:
        os.chmod(store, 0o700)


@contextlib.contextmanager
def _held_open(db: Path):
    """Another process keeps the database open (so the WAL is not checkpointed away), then dies without closing."""
    holder = subprocess.Popen([PYTHON, "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                               "c.execute('SELECT 1 FROM entries').fetchall(); print('held', flush=True); "
                               "sys.stdin.read()", str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        yield
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.communicate(timeout=60)


@pytest.mark.parametrize("state", ["database closed", "log left beside the database", "no database yet"])
def test_writer_in_a_read_only_store_directory_says_so(tmp_path, state):
    project = _project_with_settings(tmp_path)
    home, store = tmp_path / "home", tmp_path / "G"
    home.mkdir()
    first = {"name": "Earlier", "description": "Stored before the store became read-only.", "category": "patterns"}
    if state == "log left beside the database":
        assert run_app("memory_apps.writer", upsert_args(store, project, first), home).returncode == 0
        with _held_open(store / "memory.db"):
            assert run_app("memory_apps.writer", upsert_args(store, project, {
                **first, "name": "Later", "description": "Stored while another process kept the log."}),
                home).returncode == 0
        (store / "memory.db-shm").unlink()  # the next opener must create the log's index in the store directory
        assert (store / "memory.db-wal").exists() and not (store / "memory.db-shm").exists()
    elif state == "database closed":
        assert run_app("memory_apps.writer", upsert_args(store, project, first), home).returncode == 0
    else:
        store.mkdir(mode=0o700)
        (store / "patterns.md").write_text("# Global Patterns\n", encoding="utf-8")
    before = sorted(p.name for p in store.iterdir())

    result = _writer_in_read_only_store(store, project, home, {
        "name": "Refused", "description": "This write meets a read-only store directory.", "category": "patterns"})

    assert result.returncode == 2, (result.stdout, result.stderr)
    assert f"the store directory {store} is read-only" in result.stderr, result.stderr
    assert "unable to open" not in result.stderr and "Traceback" not in result.stderr
    assert result.stdout == ""
    assert sorted(p.name for p in store.iterdir()) == before
    if state != "no database yet":
        names = {row[0] for row in db_rows(store / "memory.db", "SELECT name FROM entries")}
        assert names == ({"Earlier", "Later"} if state.startswith("log") else {"Earlier"}), "nothing is lost"
