"""PostgresEntryStore: the entry store, full-text keyword index and pgvector vectors in one PostgreSQL database,
the team-sized sibling of `SqliteEntryStore` (same ports, same contract suites; ADR 22).

The store owns its parts, each a module, all on the process's shared connection: the connection and its errors
(`connection`), the numbered migrations (`schema`), the reads both SQL stores share (`sql.entry_reads`), entry
writes (`entries`), the markdown outbox (`outbox`), vectors (`vectors`), full-text search and cited files
(`search`), paged browsing and the overview's counts (`sql.browsing`), the candidates of a session start
(`candidates`), and the policies written once for both stores (`sql.staging`, `sql.query_vectors`,
`sql.tombstones`). Each public method below names the part that answers it.
psycopg is imported when a store is made, never by the SQLite path.
"""

from __future__ import annotations

import socket
from typing import Optional

from memory_adapters.store.postgres.candidates import PostgresCandidates
from memory_adapters.store.postgres.connection import CONNECT_TIMEOUT_S, PostgresConnection
from memory_adapters.store.postgres.entries import PostgresEntries, PostgresTombstoneRows, os_user
from memory_adapters.store.postgres.lifecycle import PostgresLifecycleRows
from memory_adapters.store.postgres.outbox import PostgresMarkdownOutbox
from memory_adapters.store.postgres.rows import COLUMNS, entry_of
from memory_adapters.store.postgres.search import PostgresSearch
from memory_adapters.store.postgres.vectors import QUERY_VECTOR_SQL, STAGING_SQL, PostgresVectors, index_new_width
from memory_adapters.store.sql.browsing import POSTGRES_SPELLING, SqlEntryBrowsing
from memory_adapters.store.sql.dialect import SqlDialect
from memory_adapters.store.sql.entry_reads import SqlEntryReads
from memory_adapters.store.sql.facade import answered_by
from memory_adapters.store.sql.lifecycle import SqlEntryLifecycle
from memory_adapters.store.sql.lifecycle_facade import LifecycleAnswers
from memory_adapters.store.sql.query_vectors import SqlQueryVectors
from memory_adapters.store.sql.staging import SqlStagedVectors
from memory_adapters.store.sql.tombstones import SqlTombstones

DIALECT = SqlDialect(mark="%s", columns=COLUMNS, stored_order="seq", entry_of=entry_of)


class PostgresEntryStore(LifecycleAnswers):
    """Implements EntryStore, EntryLifecycle, AuditOutbox, KeywordIndex, ReferenceIndex, EmbeddingStore,
    StagingVectorStore, QueryVectorCache, EntryBrowser and CandidateSource over one PostgreSQL database with
    pgvector (short transactions, numbered migrations)."""

    def __init__(self, url: str, connect_timeout: float = CONNECT_TIMEOUT_S, keyword_search: bool = True,
                 source_user: Optional[str] = None, statement_timeout_ms: int = 0,
                 origin: Optional[str] = None) -> None:
        """Connect (giving up after `connect_timeout` seconds, fractions too) and migrate; `statement_timeout_ms`
        (0: none) makes the server cancel any longer statement; `source_user` names who writes new entries
        (default: the OS user); `origin` names this machine's markdown (default: the host name). Raises
        StorageError."""
        self.connection = PostgresConnection(url, connect_timeout, statement_timeout_ms)
        self.url = url
        self.path = self.connection.path  # the URL with its password masked
        self._reads = SqlEntryReads(self.connection, DIALECT)
        self._browsing = SqlEntryBrowsing(self.connection, DIALECT, POSTGRES_SPELLING)
        self._tombstones = SqlTombstones(self.connection, PostgresTombstoneRows())
        self._outbox = PostgresMarkdownOutbox(self.connection, origin or socket.gethostname())
        user = source_user or os_user()
        self._entries = PostgresEntries(self.connection, self._outbox, user)
        self._lifecycle = SqlEntryLifecycle(self.connection, PostgresLifecycleRows(self._outbox, user))
        self._vectors = PostgresVectors(self.connection)
        self._staging = SqlStagedVectors(self.connection, STAGING_SQL, swapped=index_new_width)
        self._query_vectors = SqlQueryVectors(self.connection, QUERY_VECTOR_SQL)
        self._search = PostgresSearch(self.connection, keyword_search)
        self._candidates = PostgresCandidates(self.connection)

    close = answered_by("connection", PostgresConnection.close)

    # EntryStore
    get = answered_by("_reads", SqlEntryReads.get)
    ids_with_prefix = answered_by("_reads", SqlEntryReads.ids_with_prefix)
    all_entries = answered_by("_reads", SqlEntryReads.all_entries)
    import_states = answered_by("_reads", SqlEntryReads.import_states)
    count = answered_by("_reads", SqlEntryReads.count)
    deleted_ids = answered_by("_reads", SqlEntryReads.deleted_ids)
    get_metadata = answered_by("_reads", SqlEntryReads.get_metadata)
    metadata_items = answered_by("_reads", SqlEntryReads.metadata_items)
    upsert = answered_by("_entries", PostgresEntries.upsert)
    import_entries = answered_by("_entries", PostgresEntries.import_entries)
    delete = answered_by("_entries", PostgresEntries.delete)
    set_scope = answered_by("_entries", PostgresEntries.set_scope)
    add_scope = answered_by("_entries", PostgresEntries.add_scope)
    record_recall = answered_by("_entries", PostgresEntries.record_recall)
    get_many = answered_by("_entries", PostgresEntries.get_many)
    ranking_stats = answered_by("_entries", PostgresEntries.ranking_stats)
    source_user = answered_by("_entries", PostgresEntries.source_user)
    set_metadata = answered_by("_entries", PostgresEntries.set_metadata)
    apply_tombstones = answered_by("_tombstones", SqlTombstones.apply_tombstones)

    # EntryBrowser
    browse = answered_by("_browsing", SqlEntryBrowsing.browse)
    tallies = answered_by("_browsing", SqlEntryBrowsing.tallies)

    # AuditOutbox
    queue_markdown = answered_by("_outbox", PostgresMarkdownOutbox.queue_markdown)
    pending_audit = answered_by("_outbox", PostgresMarkdownOutbox.pending_audit)
    audit_done = answered_by("_outbox", PostgresMarkdownOutbox.audit_done)
    audit_failed = answered_by("_outbox", PostgresMarkdownOutbox.audit_failed)

    # EmbeddingStore, BatchVectorStore, StagingVectorStore, QueryVectorCache, server-side similarities
    set_vector = answered_by("_vectors", PostgresVectors.set_vector)
    set_vectors = answered_by("_vectors", PostgresVectors.set_vectors)
    vectors = answered_by("_vectors", PostgresVectors.vectors)
    vectors_after = answered_by("_vectors", PostgresVectors.vectors_after)
    vectors_version = answered_by("_vectors", PostgresVectors.vectors_version)
    pending_ids = answered_by("_vectors", PostgresVectors.pending_ids)
    cosine_similarities = answered_by("_vectors", PostgresVectors.cosine_similarities)
    nearest = answered_by("_vectors", PostgresVectors.nearest)
    start_staging = answered_by("_staging", SqlStagedVectors.start_staging)
    unstaged_ids = answered_by("_staging", SqlStagedVectors.unstaged_ids)
    set_staged_vector = answered_by("_staging", SqlStagedVectors.set_staged_vector)
    promote_staged = answered_by("_staging", SqlStagedVectors.promote_staged)
    cached_query_vector = answered_by("_query_vectors", SqlQueryVectors.cached_query_vector)
    cache_query_vector = answered_by("_query_vectors", SqlQueryVectors.cache_query_vector)

    # KeywordIndex, ReferenceIndex and CandidateSource
    keyword_search_available = answered_by("_search", PostgresSearch.keyword_search_available)
    keyword_scale = answered_by("_search", PostgresSearch.keyword_scale)
    keyword_search = answered_by("_search", PostgresSearch.keyword_search)
    cited_files = answered_by("_search", PostgresSearch.cited_files)
    ranking_summary = answered_by("_candidates", PostgresCandidates.ranking_summary)
    prominent_stats = answered_by("_candidates", PostgresCandidates.prominent_stats)
    ranking_stats_of = answered_by("_candidates", PostgresCandidates.ranking_stats_of)
