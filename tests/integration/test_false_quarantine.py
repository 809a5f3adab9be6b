"""A healthy database is never called corrupt: only SQLite's own answers decide (issue 11, item 1).

Opening the file with a Python file object beside live SQLite connections drops the process's POSIX locks, and
reading the header while WAL checkpoints grow the file sees states that are not corruption at all.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
import threading
from datetime import datetime, timezone
from pathlib import Path

import pytest

from memory_adapters.store.sqlite.store import SqliteEntryStore
from memory_core.errors import DatabaseCorrupt, StorageError
from memory_core.entries.models import EntryDraft
from tests._helpers import PYTHON, app_env

NOW = datetime(2026, 11, 23, tzinfo=timezone.utc)


def _draft(i: int) -> EntryDraft:
    return EntryDraft(name=f"Learning {i}", description=f"Keep learning number {i} in one short transaction.",
                      category="patterns", source="retro")


def test_a_trailing_partial_page_is_not_corruption(tmp_path):
    """SQLite reads the file and quick_check says ok: it is opened, not moved aside."""
    db = tmp_path / "memory.db"
    store = SqliteEntryStore(str(db))
    for i in range(30):
        store.upsert(_draft(i), NOW)
    store.close()
    with open(db, "ab") as handle:  # a size that is not a whole number of pages
        handle.write(b"\0" * 100)
    reopened = SqliteEntryStore(str(db), full_check=True)
    assert reopened.count() == 30
    reopened.close()


def test_a_file_that_is_not_sqlite_is_corrupt(tmp_path):
    db = tmp_path / "memory.db"
    db.write_bytes(b"this is a text file, not a database\n" * 200)
    with pytest.raises(DatabaseCorrupt):
        SqliteEntryStore(str(db))


def test_a_truncated_database_is_corrupt_by_sqlites_own_check(tmp_path):
    db = tmp_path / "memory.db"
    store = SqliteEntryStore(str(db))
    for i in range(300):
        store.upsert(_draft(i).model_copy(update={"reasoning": "filler " * 100}), NOW)
    store.close()
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2])
    with pytest.raises(DatabaseCorrupt):
        store = SqliteEntryStore(str(db), full_check=True)
        store.all_entries()


def test_a_locked_database_is_busy_not_corrupt(tmp_path):
    """Another process holding the write lock is a StorageError at worst, never DatabaseCorrupt."""
    db = tmp_path / "memory.db"
    SqliteEntryStore(str(db)).close()
    holder = sqlite3.connect(str(db), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        store = SqliteEntryStore(str(db), busy_timeout_ms=50, busy_retries=1)
        with pytest.raises(StorageError) as raised:
            store.upsert(_draft(1), NOW)
        assert not isinstance(raised.value, DatabaseCorrupt)
    finally:
        holder.execute("ROLLBACK")
        holder.close()


WRITER = textwrap.dedent("""
    import sys
    from datetime import datetime, timezone
    from memory_adapters.store.sqlite.store import SqliteEntryStore
    from memory_core.entries.models import EntryDraft

    store = SqliteEntryStore(sys.argv[1])
    worker = int(sys.argv[2])
    print("ready", flush=True)
    n = 0
    while True:
        draft = EntryDraft(name=f"Writer {worker} entry {n}", description=f"Writer {worker} wrote entry {n}. "
                           + "filler text " * 60, reasoning="r" * 2000, category="patterns", source="retro")
        store.upsert(draft, datetime.now(timezone.utc))
        n += 1
""")


def test_many_stores_and_threads_in_one_process_beside_writer_processes(tmp_path):
    """Three writer processes grow the file under WAL checkpoints while this process opens stores in four
    threads (full check included) and reads through them: no open or read is ever called corrupt or fails."""
    store_dir = tmp_path / "store"
    store_dir.mkdir()
    db = store_dir / "memory.db"
    SqliteEntryStore(str(db)).close()
    script = tmp_path / "writer.py"
    script.write_text(WRITER, encoding="utf-8")
    env = app_env(tmp_path)
    writers = [subprocess.Popen([PYTHON, str(script), str(db), str(w)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env) for w in range(3)]
    failures: list[str] = []
    opens = [0]
    try:
        for writer in writers:
            assert writer.stdout.readline().strip() == "ready"

        def open_and_read(thread: int) -> None:
            for n in range(60):
                try:
                    store = SqliteEntryStore(str(db), full_check=(n % 3 == 0))
                    try:
                        store.count()
                        store.ranking_stats()
                        if n % 5 == 0:
                            store.upsert(_draft(1000 * thread + n), datetime.now(timezone.utc))
                    finally:
                        store.close()
                    opens[0] += 1
                except StorageError as exc:  # DatabaseCorrupt included
                    failures.append(f"{type(exc).__name__}: {exc}")

        threads = [threading.Thread(target=open_and_read, args=(t,)) for t in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        for writer in writers:
            writer.kill()
            writer.wait()
    assert failures == [], failures[:5]
    assert opens[0] == 240
    assert not list(store_dir.glob("memory.db.corrupt-*"))
    check = sqlite3.connect(str(db))
    assert check.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    check.close()
