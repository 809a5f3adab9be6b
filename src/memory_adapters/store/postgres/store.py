"""PostgresEntryStore: the entry store, full-text keyword index and pgvector vectors in one PostgreSQL database,
the team-sized sibling of `SqliteEntryStore` (same ports, same contract suites; ADR 22).

Each concern is its own module: the connection and its errors (`postgres_connection`), the numbered migrations
(`postgres_schema`), rows ⇄ entries (`postgres_rows`), entries (`postgres_entries`), the markdown outbox
(`postgres_outbox`), vectors (`postgres_vectors`), full-text search and cited files (`postgres_search`), the
candidates of a session start (`postgres_candidates`). psycopg is imported when a store is made, never by the
SQLite path.
"""

from __future__ import annotations

from memory_adapters.store.postgres.candidates import PostgresCandidates
from memory_adapters.store.postgres.outbox import PostgresMarkdownOutbox
from memory_adapters.store.postgres.search import PostgresSearch
from memory_adapters.store.postgres.vectors import PostgresVectors


class PostgresEntryStore(PostgresMarkdownOutbox, PostgresVectors, PostgresSearch, PostgresCandidates):
    """Implements EntryStore, AuditOutbox, KeywordIndex, ReferenceIndex, EmbeddingStore, StagingVectorStore,
    QueryVectorCache and CandidateSource over one PostgreSQL database with pgvector (short transactions, numbered
    migrations)."""
