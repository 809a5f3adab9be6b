"""SQLite schema specifics: fresh layout, migrations from spec-001 databases, FTS upkeep, corrupt files."""

from __future__ import annotations

import json
import sqlite3

import pytest

from memory_adapters.store.sqlite import schema as sqlite_schema
from memory_adapters.store.sqlite.schema import LATEST_VERSION
from memory_adapters.store.sqlite.store import SqliteEntryStore
from memory_core.errors import DatabaseCorrupt, StorageError
from memory_core.ranking.fts_query import sanitise_fts_query
from memory_core.entries.models import EntryDraft
from tests.fakes import T0

_STRIP = "REPLACE(REPLACE(REPLACE(REPLACE({}.keywords, '[\"', ''), '\"]', ''), '\",\"', ' '), '\"', '')"
# Written out by hand from design C1 (spec 001), as another program implementing that design would.
SPEC_001_ENTRIES = """
CREATE TABLE IF NOT EXISTS entries (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, description TEXT NOT NULL, reasoning TEXT,
    category TEXT NOT NULL CHECK(category IN ('anti-patterns', 'patterns', 'heuristics')),
    keywords TEXT, "references" TEXT, observation_count INTEGER DEFAULT 1,
    confidence TEXT DEFAULT 'medium' CHECK(confidence IN ('high', 'medium', 'low')),
    recall_count INTEGER DEFAULT 0, last_recalled_at TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    source TEXT NOT NULL CHECK(source IN ('retro', 'session-capture', 'manual', 'import')),
    source_project TEXT, embedding BLOB
);
"""
SPEC_001_FTS = f"""
CREATE VIRTUAL TABLE IF NOT EXISTS entries_fts USING fts5(
    name, description, keywords, reasoning, content='entries', content_rowid='rowid');
CREATE TRIGGER IF NOT EXISTS entries_ai AFTER INSERT ON entries BEGIN
    INSERT INTO entries_fts(rowid, name, description, keywords, reasoning)
    VALUES (new.rowid, new.name, new.description, {_STRIP.format('new')}, new.reasoning);
END;
CREATE TRIGGER IF NOT EXISTS entries_ad AFTER DELETE ON entries BEGIN
    INSERT INTO entries_fts(entries_fts, rowid, name, description, keywords, reasoning)
    VALUES ('delete', old.rowid, old.name, old.description, {_STRIP.format('old')}, old.reasoning);
END;
CREATE TRIGGER IF NOT EXISTS entries_au AFTER UPDATE ON entries BEGIN
    INSERT INTO entries_fts(entries_fts, rowid, name, description, keywords, reasoning)
    VALUES ('delete', old.rowid, old.name, old.description, {_STRIP.format('old')}, old.reasoning);
    INSERT INTO entries_fts(rowid, name, description, keywords, reasoning)
    VALUES (new.rowid, new.name, new.description, {_STRIP.format('new')}, new.reasoning);
END;
"""
SPEC_001_METADATA = "CREATE TABLE IF NOT EXISTS _metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
FOREIGN_ROWS = [
    ("a1b2c3d4e5f60718", "Flaky clock", "Inject a clock instead of calling now()", "tests got stable",
     "patterns", json.dumps(["clock-injection", "deterministic-tests"]), "[]", 3, "high", 0, None,
     "2026-01-05T10:00:00Z", "2026-02-01T08:30:00Z", "retro", "proj"),
    ("0f1e2d3c4b5a6978", "Silent fallback", "Swallowed errors hid an outage", None,
     "anti-patterns", json.dumps(["error-handling"]), None, 1, "medium", 2, "2026-03-01T00:00:00+00:00",
     "2026-01-05T10:00:00.123456+00:00", "2026-01-05T10:00:00", "session-capture", None),
]


def foreign_database(path, with_fts: bool = True, version: str | None = "1") -> None:
    """Create a database the way another spec-001 program would, with two rows."""
    conn = sqlite3.connect(path)
    conn.executescript(SPEC_001_ENTRIES + (SPEC_001_FTS if with_fts else "") + SPEC_001_METADATA)
    conn.executemany(f"INSERT INTO entries VALUES ({','.join('?' * 15)}, NULL)", FOREIGN_ROWS)
    if version is not None:
        conn.execute("INSERT INTO _metadata VALUES ('schema_version', ?)", (version,))
    conn.commit()
    conn.close()


def names(conn, kind: str) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = ?", (kind,))}


def fts_consistent(path) -> bool:
    """FTS5 integrity-check against the content table (rank=1 compares the index with `entries`)."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("INSERT INTO entries_fts(entries_fts, rank) VALUES ('integrity-check', 1)")
        return True
    except sqlite3.DatabaseError:
        return False
    finally:
        conn.close()


def find(store, text: str) -> set[str]:
    return set(store.keyword_search(sanitise_fts_query(text), 50))


def upsert(store, description: str, **fields) -> str:
    values = {"name": "n", "description": description, "category": "heuristics", **fields}
    return store.upsert(EntryDraft(**values), T0).entry_id


@pytest.fixture
def db(tmp_path):
    return tmp_path / "memory.db"


def test_fresh_database_layout(db):
    SqliteEntryStore(str(db))
    conn = sqlite3.connect(db)
    assert {"entries", "entries_fts", "_metadata"} <= names(conn, "table")
    assert {"entries_ai", "entries_ad", "entries_au"} <= names(conn, "trigger")
    assert conn.execute("SELECT value FROM _metadata WHERE key='schema_version'").fetchone() == (str(LATEST_VERSION),)
    assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_keywords_json_is_stripped_in_the_index(db):
    store = SqliteEntryStore(str(db))
    entry_id = upsert(store, "Readers never wait", keywords=["busy-timeout", "wal-checkpoint"])
    conn = sqlite3.connect(db)
    conn.execute("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, entries_fts, 'instance')")
    terms = {r[0] for r in conn.execute("SELECT term FROM temp.vocab WHERE col = 'keywords'")}
    assert terms == {"busy", "timeout", "wal", "checkpoint"}
    assert find(store, "checkpoint") == {entry_id}
    assert fts_consistent(db)


def test_index_stays_consistent_through_every_write(db):
    store = SqliteEntryStore(str(db))
    keep = upsert(store, "Pin tool versions", keywords=["reproducible-builds"])
    gone = upsert(store, "Cache wheels", keywords=["pip-cache"])
    upsert(store, "pin TOOL versions", keywords=["toolchain"], reasoning="drift broke CI")
    store.record_recall([keep, gone], T0)
    store.set_vector(keep, [0.0] * 4)
    store.import_entries([(EntryDraft(name="n", description="Cache wheels", category="heuristics",
                                      observation_count=4), None)], T0)
    store.delete(gone)
    assert fts_consistent(db)
    assert find(store, "toolchain drift") == {keep} and find(store, "reproducible cache wheels") == set()


def test_spec_001_database_from_another_program_is_migrated(db):
    foreign_database(db)
    store = SqliteEntryStore(str(db))
    assert store.get_metadata("schema_version") == str(LATEST_VERSION)
    entries = {e.id: e for e in store.all_entries()}
    assert set(entries) == {FOREIGN_ROWS[0][0], FOREIGN_ROWS[1][0]}
    clock = entries["a1b2c3d4e5f60718"]
    assert clock.keywords == ["clock-injection", "deterministic-tests"] and clock.observation_count == 3
    assert clock.updated_at.isoformat() == "2026-02-01T08:30:00+00:00"
    assert entries["0f1e2d3c4b5a6978"].references == [] and entries["0f1e2d3c4b5a6978"].recall_count == 2
    assert find(store, "deterministic") == {"a1b2c3d4e5f60718"}
    assert find(store, "outage") == {"0f1e2d3c4b5a6978"}
    store.record_recall(["a1b2c3d4e5f60718"], T0)
    assert fts_consistent(db)


def test_entries_without_an_fts_table_get_the_index_rebuilt(db):
    foreign_database(db, with_fts=False, version=None)
    store = SqliteEntryStore(str(db))
    assert store.keyword_search_available is True
    assert find(store, "clock injection") == {"a1b2c3d4e5f60718"}
    assert fts_consistent(db)


def test_database_written_without_fts5_gets_the_index_when_fts5_is_back(db):
    # E.g. first written by a Python without FTS5 (or with fts5 switched off), then opened by one with it.
    entry_id = upsert(SqliteEntryStore(str(db), enable_fts5=False), "Inject a clock instead of calling now()")
    store = SqliteEntryStore(str(db))
    assert store.keyword_search_available is True
    assert find(store, "clock") == {entry_id}


def test_random_bytes_are_reported_as_corrupt(db):
    db.write_bytes(b"definitely not an sqlite database file " * 200)
    with pytest.raises(DatabaseCorrupt):
        SqliteEntryStore(str(db))
    assert issubclass(DatabaseCorrupt, StorageError)


def test_opening_twice_runs_each_migration_once(db, monkeypatch):
    runs: list[int] = []
    for number, migration in list(sqlite_schema.MIGRATIONS.items()):
        def counted(conn, fts5, _number=number, _migration=migration):
            runs.append(_number)
            _migration(conn, fts5)
        monkeypatch.setitem(sqlite_schema.MIGRATIONS, number, counted)
    first = SqliteEntryStore(str(db))
    entry_id = upsert(first, "Inject a clock")
    second = SqliteEntryStore(str(db))
    assert runs == sorted(sqlite_schema.MIGRATIONS)
    assert second.get_metadata("schema_version") == str(LATEST_VERSION)
    assert second.count() == 1 and find(second, "clock") == {entry_id}
    upsert(second, "Second writer")
    assert first.count() == 2


def test_a_store_with_project_scopes_passes_sqlites_own_check(db):
    """quick_check is the corruption verdict: the schema must never make it complain about sound data."""
    from memory_adapters.store.sqlite.health import quick_check

    store = SqliteEntryStore(str(db))
    entry_id = store.upsert(EntryDraft(name="n", description="Scoped twice.", category="patterns",
                                       scope="path:/a"), T0).entry_id
    store.add_scope(entry_id, "path:/b")
    with store.connection.locked() as conn:
        assert quick_check(conn) is None
    assert [s.id for s in store.ranking_stats(["path:/b"])] == [entry_id]
    assert store.ranking_stats(["path:/c"]) == []
