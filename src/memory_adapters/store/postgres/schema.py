"""Numbered migrations of the PostgreSQL schema, recorded in `schema_migrations` and applied under a
transaction-scoped advisory lock, so many processes starting against a new database migrate it once."""

from __future__ import annotations

from typing import Any

MIGRATION_LOCK = 0x1F10_3E30_0001  # pg_advisory_xact_lock key: "iflow-memory schema", per database
HNSW_M = 16
HNSW_EF_CONSTRUCTION = 64
HNSW_MAX_DIMENSIONS = 2000  # pgvector cannot index wider vectors with HNSW: those spaces are scanned exactly

# Same tables, columns and _metadata keys as SQLite's schema at its migration 10 (scopes, outbox, staging,
# query vectors, tombstones), plus `seq` (SQLite's rowid), `source_user` and the generated `search` vector.
_INITIAL = [
    "CREATE EXTENSION IF NOT EXISTS vector",
    """CREATE TABLE entries (
        seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
        id TEXT PRIMARY KEY CHECK (id ~ '^[0-9a-f]{16}$'),
        name TEXT NOT NULL,
        description TEXT NOT NULL,
        reasoning TEXT NOT NULL DEFAULT '',
        category TEXT NOT NULL CHECK (category IN ('anti-patterns', 'patterns', 'heuristics')),
        keywords JSONB NOT NULL DEFAULT '[]',
        "references" JSONB NOT NULL DEFAULT '[]',
        observation_count INTEGER NOT NULL DEFAULT 1 CHECK (observation_count >= 1),
        confidence TEXT NOT NULL DEFAULT 'medium' CHECK (confidence IN ('high', 'medium', 'low')),
        recall_count INTEGER NOT NULL DEFAULT 0 CHECK (recall_count >= 0),
        last_recalled_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL,
        source TEXT NOT NULL CHECK (source IN ('retro', 'session-capture', 'manual', 'import')),
        source_project TEXT,
        source_user TEXT,
        scope TEXT,
        embedding vector,
        search tsvector GENERATED ALWAYS AS (to_tsvector('simple',
            name || ' ' || description || ' ' || keywords::text || ' ' || reasoning)) STORED
    )""",
    "CREATE INDEX idx_entries_search ON entries USING gin (search)",
    "CREATE INDEX idx_entries_category ON entries (category)",
    "CREATE INDEX idx_entries_pending ON entries (id) WHERE embedding IS NULL",
    "CREATE INDEX idx_entries_scope ON entries (scope)",
    "CREATE INDEX idx_entries_cited ON entries (id) WHERE \"references\" <> '[]'::jsonb",
    "CREATE TABLE entry_scopes (id TEXT NOT NULL REFERENCES entries(id) ON DELETE CASCADE, scope TEXT NOT NULL, "
    "PRIMARY KEY (scope, id))",
    "CREATE TABLE _metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "INSERT INTO _metadata (key, value) VALUES ('vectors_version', '0'), "
    "('database_id', substr(md5(random()::text || clock_timestamp()::text), 1, 16))",
    "CREATE TABLE deleted_entries (id TEXT PRIMARY KEY, deleted_at TIMESTAMPTZ NOT NULL)",
    "CREATE TABLE staged_vectors (id TEXT PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE, "
    "vector vector NOT NULL)",
    "CREATE TABLE query_vectors (space TEXT NOT NULL, query_hash TEXT NOT NULL, vector BYTEA NOT NULL, "
    "stored_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (space, query_hash))",
    "CREATE SEQUENCE markdown_outbox_seq",
    "CREATE TABLE markdown_outbox (seq BIGINT PRIMARY KEY DEFAULT nextval('markdown_outbox_seq'), "
    "entry_id TEXT NOT NULL, action TEXT NOT NULL CHECK (action IN ('record', 'forget')), "
    "category TEXT NOT NULL, project_root TEXT NOT NULL DEFAULT '', queued_at TIMESTAMPTZ NOT NULL, "
    "attempts INTEGER NOT NULL DEFAULT 0, UNIQUE (entry_id, project_root))",
    # A vector cache outside the database (NumpyVectorIndex) knows it is stale when this counter moves.
    """CREATE FUNCTION bump_vectors_version() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE _metadata SET value = (value::bigint + 1)::text WHERE key = 'vectors_version';
            RETURN NULL;
        END $$""",
    "CREATE TRIGGER vectors_ai AFTER INSERT ON entries FOR EACH ROW WHEN (NEW.embedding IS NOT NULL) "
    "EXECUTE FUNCTION bump_vectors_version()",
    "CREATE TRIGGER vectors_au AFTER UPDATE OF embedding ON entries FOR EACH STATEMENT "
    "EXECUTE FUNCTION bump_vectors_version()",
    "CREATE TRIGGER vectors_ad AFTER DELETE ON entries FOR EACH STATEMENT EXECUTE FUNCTION bump_vectors_version()",
]

# The orders a session start reads its prominent candidates in (postgres_candidates), as indexes.
_PROMINENCE_INDEXES = [
    "CREATE INDEX idx_entries_observations ON entries (observation_count DESC, id)",
    "CREATE INDEX idx_entries_updated ON entries (updated_at DESC, id)",
    "CREATE INDEX idx_entries_recalls ON entries (recall_count DESC, id)",
]

# The markdown an entry's write owes lives on the machine that wrote it: each outbox row names that machine.
_OUTBOX_ORIGIN = [
    "ALTER TABLE markdown_outbox ADD COLUMN origin TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE markdown_outbox DROP CONSTRAINT markdown_outbox_entry_id_project_root_key",
    "ALTER TABLE markdown_outbox ADD CONSTRAINT markdown_outbox_owed_once UNIQUE (entry_id, project_root, origin)",
    "CREATE INDEX idx_outbox_origin ON markdown_outbox (origin, seq)",
]

# Issue 21 / ADR 23, as SQLite's migration 11: the user's own stored entries universal, banks re-decided.
_SCOPE_BY_AUTHORSHIP = [
    "UPDATE entries SET scope = NULL WHERE scope LIKE 'name:%' OR (scope IS NOT NULL AND source <> 'import')",
    "DELETE FROM entry_scopes WHERE id IN (SELECT id FROM entries WHERE scope IS NULL)",
    "DELETE FROM _metadata WHERE key LIKE 'imported:%'",
]

# Issue 24 / ADR 26, as SQLite's migration 12: anchors with each entry and the lifecycle's tables.
_LIFECYCLE = [
    "ALTER TABLE entries ADD COLUMN IF NOT EXISTS anchors JSONB",
    "CREATE TABLE IF NOT EXISTS retired_entries (id TEXT PRIMARY KEY, entry JSONB NOT NULL, "
    "retired_at TIMESTAMPTZ NOT NULL, reason TEXT NOT NULL DEFAULT '', superseded_by TEXT)",
    "CREATE TABLE IF NOT EXISTS entry_aliases (old_id TEXT PRIMARY KEY, new_id TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS idx_entry_aliases_new ON entry_aliases (new_id)",
    "CREATE TABLE IF NOT EXISTS entry_history (seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
    "entry_id TEXT NOT NULL, action TEXT NOT NULL, at TIMESTAMPTZ NOT NULL, actor TEXT NOT NULL DEFAULT '', "
    "detail JSONB NOT NULL DEFAULT '{}')",
    "CREATE INDEX IF NOT EXISTS idx_entry_history_entry ON entry_history (entry_id)",
    "CREATE TABLE IF NOT EXISTS bank_blocks (bank TEXT NOT NULL, category TEXT NOT NULL, name TEXT NOT NULL, "
    "id TEXT NOT NULL, PRIMARY KEY (bank, category, name))",
]

# Issue 25 / ADR 27, as SQLite's migration 13: the viewer's pages and tallies scan a covering index (an index-only
# scan) instead of rows that carry their vectors and search vectors; the name order is read straight from an index.
_BROWSE_INDEXES = [
    "CREATE INDEX IF NOT EXISTS idx_entries_browse ON entries (category, source, source_project, scope, created_at, "
    "updated_at, recall_count, last_recalled_at, observation_count, id) INCLUDE (name)",
    'CREATE INDEX IF NOT EXISTS idx_entries_name ON entries ((lower(name) COLLATE "C"), id)',
]

MIGRATIONS: dict[int, tuple[str, list[str]]] = {
    1: ("initial schema (SQLite's at migration 10, with source_user and full-text search)", _INITIAL),
    2: ("indexes for the prominent candidates of a session start", _PROMINENCE_INDEXES),
    3: ("the machine each owed markdown write belongs to", _OUTBOX_ORIGIN),
    4: ("scope by authorship: stored entries universal, banks re-decided at their next import",
        _SCOPE_BY_AUTHORSHIP),
    5: ("anchors, retired entries, aliases of edited ids, their history, and what each bank held", _LIFECYCLE),
    6: ("covering indexes for the viewer's pages and counts", _BROWSE_INDEXES),
}
LATEST_VERSION = max(MIGRATIONS)


def applied_version(conn: Any) -> int:
    """The last migration recorded in `schema_migrations` (0 for a new database)."""
    if conn.execute("SELECT to_regclass('schema_migrations')").fetchone()[0] is None:
        return 0
    return int(conn.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations").fetchone()[0])


def migrate(conn: Any) -> int:
    """Apply pending migrations in one transaction holding the migration lock; returns the schema version."""
    if applied_version(conn) >= LATEST_VERSION:
        return LATEST_VERSION  # the usual case: no lock taken
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, "
                     "name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
        version = applied_version(conn)  # another process may have migrated while this one waited
        for number in sorted(MIGRATIONS):
            if number > version:
                name, statements = MIGRATIONS[number]
                for statement in statements:
                    conn.execute(statement)
                conn.execute("INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", (number, name))
    return LATEST_VERSION


def hnsw_index_name(dimensions: int) -> str:
    """The name of the HNSW index over the vectors of this many dimensions."""
    return f"idx_entries_embedding_hnsw_{int(dimensions)}"


def ensure_hnsw_index(conn: Any, dimensions: int) -> bool:
    """Create the HNSW cosine index for vectors of `dimensions` (inside the caller's transaction) and drop those
    of other widths; False when pgvector cannot index that width."""
    conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))  # two pinning processes: one builds it
    dims = int(dimensions)
    for (name,) in conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'entries' "
                                "AND schemaname = current_schema() AND indexname LIKE 'idx_entries_embedding_hnsw_%'"
                                ).fetchall():
        if name != hnsw_index_name(dims):
            conn.execute(f'DROP INDEX "{name}"')
    if not 1 <= dims <= HNSW_MAX_DIMENSIONS:
        return False
    # The column holds vectors of any width (the pinned space decides it): a partial expression index per width.
    conn.execute(f"CREATE INDEX IF NOT EXISTS {hnsw_index_name(dims)} ON entries USING hnsw "
                 f"((embedding::vector({dims})) vector_cosine_ops) WITH (m = {HNSW_M}, "
                 f"ef_construction = {HNSW_EF_CONSTRUCTION}) WHERE vector_dims(embedding) = {dims}")
    return True
