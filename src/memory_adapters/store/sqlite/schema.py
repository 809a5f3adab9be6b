"""Numbered migrations of the SQLite schema (design C1 and TD8), recorded in `_metadata.schema_version`."""

from __future__ import annotations

import sqlite3
from typing import Callable, Optional

from memory_core.errors import ForeignDatabase

_STRIP_JSON = "REPLACE(REPLACE(REPLACE(REPLACE({col}, '[\"', ''), '\"]', ''), '\",\"', ' '), '\"', '')"

ENTRIES_TABLE = """
CREATE TABLE IF NOT EXISTS entries (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    reasoning TEXT,
    category TEXT NOT NULL CHECK(category IN ('anti-patterns', 'patterns', 'heuristics')),
    keywords TEXT,
    "references" TEXT,
    observation_count INTEGER DEFAULT 1,
    confidence TEXT DEFAULT 'medium' CHECK(confidence IN ('high', 'medium', 'low')),
    recall_count INTEGER DEFAULT 0,
    last_recalled_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    source TEXT NOT NULL CHECK(source IN ('retro', 'session-capture', 'manual', 'import')),
    source_project TEXT,
    embedding BLOB
);
CREATE TABLE IF NOT EXISTS _metadata (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""

FTS_TABLE = """
CREATE VIRTUAL TABLE IF NOT EXISTS entries_fts USING fts5(
    name, description, keywords, reasoning,
    content='entries',
    content_rowid='rowid'
);
"""


def _fts_row(prefix: str) -> str:
    return f"{prefix}.rowid, {prefix}.name, {prefix}.description, {_STRIP_JSON.format(col=prefix + '.keywords')}, {prefix}.reasoning"


def _trigger_sql(update_columns: str = "") -> str:
    of = f" OF {update_columns}" if update_columns else ""
    insert_new = f"INSERT INTO entries_fts(rowid, name, description, keywords, reasoning) VALUES ({_fts_row('new')});"
    delete_old = (
        "INSERT INTO entries_fts(entries_fts, rowid, name, description, keywords, reasoning) "
        f"VALUES ('delete', {_fts_row('old')});"
    )
    return f"""
CREATE TRIGGER IF NOT EXISTS entries_ai AFTER INSERT ON entries BEGIN {insert_new} END;
CREATE TRIGGER IF NOT EXISTS entries_ad AFTER DELETE ON entries BEGIN {delete_old} END;
CREATE TRIGGER IF NOT EXISTS entries_au AFTER UPDATE{of} ON entries BEGIN {delete_old} {insert_new} END;
"""


def run_script(conn: sqlite3.Connection, script: str) -> None:
    """Execute statements one by one (executescript would commit the open transaction)."""
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            conn.execute(pending)
            pending = ""
    if pending.strip():
        conn.execute(pending)


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    row = conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone()
    return row is not None


def migration_1_initial_schema(conn: sqlite3.Connection, fts5: bool) -> None:
    """The spec-001 schema: entries, external-content entries_fts with JSON-stripping triggers, _metadata."""
    run_script(conn, ENTRIES_TABLE)
    if fts5:
        fresh_fts = not _has_table(conn, "entries_fts")
        run_script(conn, FTS_TABLE)
        run_script(conn, _trigger_sql())
        if fresh_fts:
            # A database written without FTS gets its index built from existing rows.
            conn.execute("INSERT INTO entries_fts(entries_fts) VALUES ('rebuild')")


def migration_2_indexes_and_narrow_update_trigger(conn: sqlite3.Connection, fts5: bool) -> None:
    """Index category and pending vectors; re-index FTS only when indexed text columns change."""
    conn.execute("CREATE INDEX IF NOT EXISTS idx_entries_category ON entries(category)")
    conn.execute("CREATE INDEX IF NOT EXISTS idx_entries_pending ON entries(id) WHERE embedding IS NULL")
    if fts5 and _has_table(conn, "entries_fts"):
        conn.execute("DROP TRIGGER IF EXISTS entries_au")
        run_script(conn, _trigger_sql("name, description, keywords, reasoning"))


def migration_3_staged_vectors(conn: sqlite3.Connection, fts5: bool) -> None:
    """A side table for re-embedding into a new space before swapping it in (spec TD9)."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS staged_vectors ("
        "id TEXT PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE, vector BLOB NOT NULL)"
    )


def migration_4_tombstones(conn: sqlite3.Connection, fts5: bool) -> None:
    """Ids of deleted entries, so a later import of markdown that still holds them does not bring them back."""
    conn.execute("CREATE TABLE IF NOT EXISTS deleted_entries (id TEXT PRIMARY KEY, deleted_at TEXT NOT NULL)")


def migration_5_vectors_version(conn: sqlite3.Connection, fts5: bool) -> None:
    """A counter bumped by every change to the stored vectors, so a vector cache file knows it is stale."""
    conn.execute("INSERT OR IGNORE INTO _metadata(key, value) VALUES ('vectors_version', '0')")
    conn.execute("INSERT OR IGNORE INTO _metadata(key, value) VALUES ('database_id', lower(hex(randomblob(8))))")
    bump = "UPDATE _metadata SET value = CAST(value AS INTEGER) + 1 WHERE key = 'vectors_version';"
    for name, event in (("vectors_ai", "AFTER INSERT ON entries WHEN new.embedding IS NOT NULL"),
                        ("vectors_au", "AFTER UPDATE OF embedding ON entries"),
                        ("vectors_ad", "AFTER DELETE ON entries WHEN old.embedding IS NOT NULL")):
        conn.execute(f"CREATE TRIGGER IF NOT EXISTS {name} {event} BEGIN {bump} END")


def migration_6_ranking_index(conn: sqlite3.Connection, fts5: bool) -> None:
    """A covering index of the ranking columns: the session-start scan no longer reads rows full of vectors."""
    conn.execute("CREATE INDEX IF NOT EXISTS idx_entries_ranking ON entries("
                 "category, observation_count, confidence, recall_count, updated_at, created_at, id)")


def migration_7_query_vectors(conn: sqlite3.Connection, fts5: bool) -> None:
    """Query vectors of recent session contexts, keyed by embedding space and a hash of the query text."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS query_vectors ("
        "space TEXT NOT NULL, query_hash TEXT NOT NULL, vector BLOB NOT NULL, stored_at REAL NOT NULL, "
        "PRIMARY KEY (space, query_hash))"
    )


def migration_8_markdown_outbox(conn: sqlite3.Connection, fts5: bool) -> None:
    """Markdown writes owed for committed entries, queued in the same transaction and replayed until done."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS markdown_outbox ("
        "seq INTEGER PRIMARY KEY AUTOINCREMENT, entry_id TEXT NOT NULL, "
        "action TEXT NOT NULL CHECK(action IN ('record', 'forget')), category TEXT NOT NULL, "
        "project_root TEXT NOT NULL DEFAULT '', queued_at TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, "
        "UNIQUE (entry_id, project_root))"
    )


def migration_9_project_scope(conn: sqlite3.Connection, fts5: bool) -> None:
    """Which project's sessions see an entry (NULL: every project's). Entries stored before scopes existed
    name their project by directory name only: they keep that (weaker) scope, `name:<project>`."""
    if "scope" not in {r[1] for r in conn.execute("PRAGMA table_info(entries)")}:
        conn.execute("ALTER TABLE entries ADD COLUMN scope TEXT")
    conn.execute("UPDATE entries SET scope = 'name:' || source_project WHERE scope IS NULL "
                 "AND source_project IS NOT NULL AND source_project != ''")
    conn.execute("CREATE INDEX IF NOT EXISTS idx_entries_scope ON entries(scope)")
    # More projects whose banks hold the same scoped entry (a copied project, one learning in two banks).
    # A rowid table: SQLite 3.40's quick_check misreports NOT NULL columns of WITHOUT ROWID tables as NULL.
    conn.execute("CREATE TABLE IF NOT EXISTS entry_scopes (id TEXT NOT NULL, scope TEXT NOT NULL, "
                 "PRIMARY KEY (scope, id))")
    # The session-start scan filters by scope: the covering ranking index carries it too.
    conn.execute("DROP INDEX IF EXISTS idx_entries_ranking")
    conn.execute("CREATE INDEX IF NOT EXISTS idx_entries_ranking ON entries("
                 "category, observation_count, confidence, recall_count, updated_at, created_at, id, scope)")


def migration_10_cited_files_index(conn: sqlite3.Connection, fts5: bool) -> None:
    """A partial covering index of the entries that cite files: the code-reference signal reads it instead of
    every row (rows carry their vectors: 9 ms at 10k entries without it)."""
    conn.execute("CREATE INDEX IF NOT EXISTS idx_entries_cited ON entries(id, \"references\") "
                 "WHERE \"references\" NOT IN ('[]', '')")


# Issue 21 / ADR 23: what the user's own tools stored is universal; a bank is decided by who committed it.
SCOPE_BY_AUTHORSHIP = [
    "UPDATE entries SET scope = NULL WHERE scope LIKE 'name:%' OR (scope IS NOT NULL AND source != 'import')",
    "DELETE FROM entry_scopes WHERE id IN (SELECT id FROM entries WHERE scope IS NULL)",
    # Every project's bank is imported once more, so its entries are re-decided by who wrote its files.
    "DELETE FROM _metadata WHERE key LIKE 'imported:%'",
]


def migration_11_scope_by_authorship(conn: sqlite3.Connection, fts5: bool) -> None:
    """Entries stored before scopes (`name:<project>`) and the writer's project entries become universal; every
    bank is re-decided by authorship at its project's next session or import."""
    for statement in SCOPE_BY_AUTHORSHIP:
        conn.execute(statement)


# Issue 24 / ADR 26. Rowid tables all (see migration 9 on WITHOUT ROWID); times are ISO 8601 UTC text.
LIFECYCLE_TABLES = [
    # The whole entry as JSON (counts, dates, anchors, scope, extra scopes): `restore` puts it back as it was.
    "CREATE TABLE IF NOT EXISTS retired_entries (id TEXT PRIMARY KEY, entry TEXT NOT NULL, retired_at TEXT NOT NULL, "
    "reason TEXT NOT NULL DEFAULT '', superseded_by TEXT)",
    "CREATE TABLE IF NOT EXISTS entry_aliases (old_id TEXT PRIMARY KEY, new_id TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS idx_entry_aliases_new ON entry_aliases(new_id)",
    "CREATE TABLE IF NOT EXISTS entry_history (seq INTEGER PRIMARY KEY AUTOINCREMENT, entry_id TEXT NOT NULL, "
    "action TEXT NOT NULL, at TEXT NOT NULL, actor TEXT NOT NULL DEFAULT '', detail TEXT NOT NULL DEFAULT '{}')",
    "CREATE INDEX IF NOT EXISTS idx_entry_history_entry ON entry_history(entry_id)",
    "CREATE TABLE IF NOT EXISTS bank_blocks (bank TEXT NOT NULL, category TEXT NOT NULL, name TEXT NOT NULL, "
    "id TEXT NOT NULL, PRIMARY KEY (bank, category, name))",
]


def migration_12_lifecycle(conn: sqlite3.Connection, fts5: bool) -> None:
    """Anchors with each entry (a JSON list) and the lifecycle's tables: retired entries, the aliases of edited
    ids, their history, and what each bank file held at its last import (ADR 26)."""
    if "anchors" not in {r[1] for r in conn.execute("PRAGMA table_info(entries)")}:
        conn.execute("ALTER TABLE entries ADD COLUMN anchors TEXT")
    for statement in LIFECYCLE_TABLES:
        conn.execute(statement)


def migration_13_browse_index(conn: sqlite3.Connection, fts5: bool) -> None:
    """A covering index of the columns the viewer filters, sorts and counts by (a page or the overview's tallies
    at 10k entries scans it, a few hundred kB, instead of rows that carry their vectors), and the name order."""
    conn.execute("CREATE INDEX IF NOT EXISTS idx_entries_browse ON entries(category, source, source_project, scope, "
                 "created_at, updated_at, recall_count, last_recalled_at, observation_count, id, name)")
    conn.execute("CREATE INDEX IF NOT EXISTS idx_entries_name ON entries(lower(name), id)")


MIGRATIONS: dict[int, Callable[[sqlite3.Connection, bool], None]] = {
    1: migration_1_initial_schema,
    2: migration_2_indexes_and_narrow_update_trigger,
    3: migration_3_staged_vectors,
    4: migration_4_tombstones,
    5: migration_5_vectors_version,
    6: migration_6_ranking_index,
    7: migration_7_query_vectors,
    8: migration_8_markdown_outbox,
    9: migration_9_project_scope,
    10: migration_10_cited_files_index,
    11: migration_11_scope_by_authorship,
    12: migration_12_lifecycle,
    13: migration_13_browse_index,
}
LATEST_VERSION = max(MIGRATIONS)


def current_version(conn: sqlite3.Connection) -> int:
    """Schema version recorded in `_metadata` (0 for a new or foreign database)."""
    if not _has_table(conn, "_metadata"):
        return 0
    row = conn.execute("SELECT value FROM _metadata WHERE key = 'schema_version'").fetchone()
    try:
        return int(row[0]) if row else 0
    except ValueError:
        return 0


def ensure_fts(conn: sqlite3.Connection) -> None:
    """Create and fill the FTS index if this database was first written without FTS5."""
    if _has_table(conn, "entries_fts"):
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        if not _has_table(conn, "entries_fts"):
            run_script(conn, FTS_TABLE)
            run_script(conn, _trigger_sql("name, description, keywords, reasoning"))
            conn.execute("INSERT INTO entries_fts(entries_fts) VALUES ('rebuild')")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


SPEC_COLUMNS = frozenset({"id", "name", "description", "reasoning", "category", "keywords", "references",
                          "observation_count", "confidence", "recall_count", "last_recalled_at", "created_at",
                          "updated_at", "source", "source_project", "embedding"})


def foreign_schema(conn: sqlite3.Connection) -> Optional[str]:
    """Why a database that has no schema version of ours is another program's (None when it is ours or empty):
    tables but no spec `entries` table, or an `entries` table without the spec's columns."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                         "AND name NOT LIKE 'sqlite_%'")}
    if not tables:
        return None
    if "entries" not in tables:
        return "another program's database (tables: " + ", ".join(sorted(tables)[:5]) + ")"
    columns = {r[1] for r in conn.execute("PRAGMA table_info(entries)")}
    missing = sorted(SPEC_COLUMNS - columns)
    return f"another program's `entries` table (no {', '.join(missing)})" if missing else None


def refuse_foreign(conn: sqlite3.Connection) -> None:
    """Raise ForeignDatabase for a file without our schema version that holds another program's tables."""
    if current_version(conn) == 0:
        problem = foreign_schema(conn)
        if problem:
            raise ForeignDatabase(problem)


def migrate(conn: sqlite3.Connection, fts5: bool) -> int:
    """Apply pending migrations in one IMMEDIATE transaction, so concurrent openers run each once.

    Raises ForeignDatabase for a sound file that holds another program's tables (it is never altered)."""
    if current_version(conn) >= LATEST_VERSION:
        return LATEST_VERSION
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = current_version(conn)
        problem = foreign_schema(conn) if version == 0 else None
        if problem:
            raise ForeignDatabase(problem)
        for number in sorted(MIGRATIONS):
            if number > version:
                MIGRATIONS[number](conn, fts5)
                conn.execute(
                    "INSERT INTO _metadata(key, value) VALUES ('schema_version', ?) "
                    "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    (str(number),),
                )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return LATEST_VERSION
