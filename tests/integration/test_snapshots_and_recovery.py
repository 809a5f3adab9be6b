"""Recovery restores everything (issue 11, item 4): a rebuild after real corruption starts from the newest
sound snapshot (recall counts, vectors, keywords, references, tombstones), then the markdown written since,
with the store's list of deleted entries applied; another program's database is moved aside, not fatal."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pytest

from memory_adapters.store.sqlite.snapshots import restore_newest, snapshots, take_snapshot
from memory_adapters.store.sqlite.store import SqliteEntryStore
from memory_apps.config import MemoryConfig
from memory_apps.service import MemoryService
from memory_core.entries.models import EntryDraft
from tests._helpers import PYTHON, app_env, db_rows, run_in_process, write_settings

NOW = datetime(2026, 11, 23, tzinfo=timezone.utc)


def _service(store: Path, project: Path) -> MemoryService:
    return MemoryService(global_store=str(store), project_root=str(project),
                         settings=MemoryConfig(embedding_provider="none"))


def _garble(db: Path) -> None:
    for suffix in ("-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    db.write_bytes(b"\x00garbage, not a database\x00" * 4096)


def test_a_rebuild_keeps_what_only_the_database_knew(tmp_path):
    store, project, other = tmp_path / "store", tmp_path / "app", tmp_path / "other"
    for directory in (project, other):
        (directory / "docs" / "knowledge-bank").mkdir(parents=True)
    service = _service(store, project)
    kept = service.remember("Pin the tokenizer", "Pin the tokenizer file next to the model weights.",
                            keywords=["tokenizer", "pinning"], references=["src/model.py"]).entry_id
    early_gone = service.remember("Old advice", "Advice deleted before the snapshot.").entry_id
    late_gone = service.remember("Later advice", "Advice deleted after the snapshot.").entry_id
    sqlite_store = service.container.store()
    sqlite_store.record_recall([kept], NOW)
    sqlite_store.record_recall([kept], NOW)
    sqlite_store.set_vector(kept, [1.0] * 4)
    labels = service.get(kept).keywords
    assert labels
    assert service.delete(early_gone)
    # Another project's bank still holds both deleted entries (it was written before the deletes).
    for name, gone in (("Old advice", "Advice deleted before the snapshot."),
                       ("Later advice", "Advice deleted after the snapshot.")):
        with open(other / "docs" / "knowledge-bank" / "patterns.md", "a", encoding="utf-8") as bank:
            bank.write(f"\n### {name}\n{gone}\n- Observation count: 4\n")
    assert snapshots(str(store / "memory.db")), "the first write already took one (none existed)"
    assert take_snapshot(str(store / "memory.db"), every_s=0) is not None
    after = service.remember("After the snapshot", "Written after the snapshot was taken.").entry_id
    assert service.delete(late_gone)
    sqlite_store.close()
    db = store / "memory.db"
    _garble(db)

    rebuilt = _service(store, project)
    entry = rebuilt.get(kept)
    assert entry is not None and entry.recall_count == 2 and entry.has_embedding
    assert entry.keywords == labels and entry.references == ["src/model.py"]
    assert rebuilt.get(after) is not None, "written after the snapshot: back from the markdown"
    assert rebuilt.get(late_gone) is None, "deleted after the snapshot: the list of deleted entries holds it"
    assert list(store.glob("memory.db.corrupt-*")), "the corrupt file is kept aside"
    # Another project's session imports its bank: neither deleted entry comes back.
    _service(store, other)
    ids = {row[0] for row in db_rows(db, "SELECT id FROM entries")}
    assert early_gone not in ids and late_gone not in ids and {kept, after} <= ids


def test_snapshots_are_private_rotated_and_only_taken_when_due(tmp_path):
    db = tmp_path / "store" / "memory.db"
    store = SqliteEntryStore(str(db))
    store.upsert(EntryDraft(name="n", description="One entry.", category="patterns"), NOW)
    store.close()
    clock = [1_000_000.0]
    taken = []
    for hour in range(0, 60, 2):
        clock[0] = 1_000_000.0 + hour * 3600
        path = take_snapshot(str(db), now=lambda: clock[0])
        if path:
            taken.append(path)
    assert len(taken) == 10, "one snapshot every six hours"
    kept = snapshots(str(db))
    assert len(kept) == 3 and kept[0] == taken[-1]
    assert stat.S_IMODE(os.stat(kept[0]).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(os.path.dirname(kept[0])).st_mode) == 0o700
    assert db_rows(Path(kept[0]), "SELECT COUNT(*) FROM entries") == [(1,)]


def test_a_damaged_snapshot_is_skipped_for_an_older_sound_one(tmp_path):
    db = tmp_path / "store" / "memory.db"
    store = SqliteEntryStore(str(db))
    store.upsert(EntryDraft(name="n", description="Kept in the older snapshot.", category="patterns"), NOW)
    store.close()
    older = take_snapshot(str(db), now=lambda: 1_000.0)
    newer = take_snapshot(str(db), now=lambda: 1_000.0 + 7 * 3600)
    assert older and newer and snapshots(str(db))[0] == newer
    Path(newer).write_bytes(b"not a database" * 1000)
    db.unlink()
    assert restore_newest(str(db)) == older
    assert db_rows(db, "SELECT description FROM entries") == [("Kept in the older snapshot.",)]
    assert restore_newest(str(db)) is None, "never replaces a database that exists"


@pytest.mark.parametrize("schema", ["CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT)",
                                    "CREATE TABLE entries (id INTEGER PRIMARY KEY, email TEXT)"])
def test_another_programs_database_is_moved_aside_and_the_write_succeeds(tmp_path, schema):
    home, project, store = tmp_path / "home", tmp_path / "app", tmp_path / "store"
    home.mkdir()
    (project / "docs" / "knowledge-bank").mkdir(parents=True)
    (project / "docs" / "knowledge-bank" / "patterns.md").write_text(
        "# Patterns\n\n### Read first\nRead the bank before writing.\n", encoding="utf-8")
    store.mkdir()
    write_settings(project, embedding_provider="none")
    db = store / "memory.db"
    conn = sqlite3.connect(str(db))
    conn.execute(schema)
    conn.execute(f"INSERT INTO {schema.split()[2]}(email) VALUES ('a@example.com')")
    conn.commit()
    conn.close()
    before = db.read_bytes()
    args = ["--global-store", str(store), "--project-root", str(project)]
    injected = subprocess.run([PYTHON, "-m", "memory_apps.injector", *args], env=app_env(home), cwd=str(project),
                              capture_output=True, text=True, timeout=60)
    assert injected.returncode == 0 and "database of another program" in injected.stdout, injected.stdout
    written = run_in_process("memory_apps.writer", ["--action", "upsert", *args, "--entry-json",
                                                    '{"name": "n", "description": "Stored after the foreign file '
                                                    'moved.", "category": "patterns"}'], home, cwd=project)
    assert written.returncode == 0, written.stderr
    (moved,) = store.glob("memory.db.foreign-*")
    assert moved.read_bytes() == before, "another program's file is kept byte for byte"
    assert {r[0] for r in db_rows(db, "SELECT description FROM entries")} == {
        "Stored after the foreign file moved.", "Read the bank before writing."}
