"""SqliteEntryStore: the entry store, FTS5 keyword index and vector storage in one SQLite file.

The store owns its parts, each a module along the lines the ports draw, all on one connection: the connection and
its errors (`connection`), the reads both SQL stores share (`sql.entry_reads`), entry writes (`entries`), the
markdown outbox and watermark (`outbox`), vectors (`vectors`), full-text search (`keyword_search`), cited files
(`references`), paged browsing and the overview's counts (`sql.browsing`), and the policies written once for both
stores (`sql.staging`, `sql.query_vectors`, `sql.tombstones`). Each public method below names the part that answers it.
"""

from __future__ import annotations

from typing import Optional

from memory_adapters.store.sql.browsing import SQLITE_SPELLING, SqlEntryBrowsing
from memory_adapters.store.sql.dialect import SqlDialect
from memory_adapters.store.sql.entry_reads import SqlEntryReads
from memory_adapters.store.sql.facade import answered_by
from memory_adapters.store.sql.lifecycle import SqlEntryLifecycle
from memory_adapters.store.sql.lifecycle_facade import LifecycleAnswers
from memory_adapters.store.sql.query_vectors import SqlQueryVectors
from memory_adapters.store.sql.rows import row_entry
from memory_adapters.store.sql.staging import SqlStagedVectors
from memory_adapters.store.sql.tombstones import SqlTombstones
from memory_adapters.store.sqlite.connection import BUSY_RETRIES, BUSY_TIMEOUT_MS, SqliteConnection
from memory_adapters.store.sqlite.entries import SqliteEntries, SqliteTombstoneRows
from memory_adapters.store.sqlite.keyword_search import SqliteKeywordSearch
from memory_adapters.store.sqlite.lifecycle import SqliteLifecycleRows
from memory_adapters.store.sqlite.outbox import SqliteMarkdownOutbox
from memory_adapters.store.sqlite.references import SqliteReferences
from memory_adapters.store.sqlite.rows import COLUMNS
from memory_adapters.store.sqlite.vectors import QUERY_VECTOR_SQL, STAGING_SQL, SqliteVectors

DIALECT = SqlDialect(mark="?", columns=COLUMNS, stored_order="rowid", entry_of=row_entry)


class SqliteEntryStore(LifecycleAnswers):
    """Implements EntryStore, EntryLifecycle, AuditOutbox, AuditWatermark, KeywordIndex, ReferenceIndex,
    EmbeddingStore, StagingVectorStore, QueryVectorCache and EntryBrowser over one SQLite database file (WAL, busy
    timeout, short transactions, numbered migrations)."""

    def __init__(self, path: str, enable_fts5: bool = True, full_check: bool = False,
                 busy_timeout_ms: int = BUSY_TIMEOUT_MS, busy_retries: int = BUSY_RETRIES) -> None:
        """Open (creating if needed), check and migrate. `full_check` runs quick_check when the file changed
        since it was last verified. Raises DatabaseCorrupt (SQLite's own verdict) or StorageError."""
        self.connection = SqliteConnection(path, enable_fts5, full_check, busy_timeout_ms, busy_retries)
        self.path = path
        self._reads = SqlEntryReads(self.connection, DIALECT)
        self._browsing = SqlEntryBrowsing(self.connection, DIALECT, SQLITE_SPELLING)
        self._tombstones = SqlTombstones(self.connection, SqliteTombstoneRows())
        self._outbox = SqliteMarkdownOutbox(self.connection, self._tombstones)
        self._entries = SqliteEntries(self.connection, self._outbox)
        self._vectors = SqliteVectors(self.connection)
        self._staging = SqlStagedVectors(self.connection, STAGING_SQL)
        self._query_vectors = SqlQueryVectors(self.connection, QUERY_VECTOR_SQL)
        self._search = SqliteKeywordSearch(self.connection)
        self._references = SqliteReferences(self.connection)
        self._lifecycle = SqlEntryLifecycle(self.connection, SqliteLifecycleRows(self._outbox))
        self._outbox.history_target = self  # a reopened import applies the markdown's history here first

    @property
    def identity(self) -> Optional[tuple[int, int]]:
        """The (device, inode) of the file this store opened."""
        return self.connection.identity

    close = answered_by("connection", SqliteConnection.close)
    change_token = answered_by("connection", SqliteConnection.change_token)

    # EntryStore
    get = answered_by("_reads", SqlEntryReads.get)
    ids_with_prefix = answered_by("_reads", SqlEntryReads.ids_with_prefix)
    all_entries = answered_by("_reads", SqlEntryReads.all_entries)
    import_states = answered_by("_reads", SqlEntryReads.import_states)
    count = answered_by("_reads", SqlEntryReads.count)
    deleted_ids = answered_by("_reads", SqlEntryReads.deleted_ids)
    get_metadata = answered_by("_reads", SqlEntryReads.get_metadata)
    metadata_items = answered_by("_reads", SqlEntryReads.metadata_items)
    upsert = answered_by("_entries", SqliteEntries.upsert)
    import_entries = answered_by("_entries", SqliteEntries.import_entries)
    delete = answered_by("_entries", SqliteEntries.delete)
    set_scope = answered_by("_entries", SqliteEntries.set_scope)
    add_scope = answered_by("_entries", SqliteEntries.add_scope)
    record_recall = answered_by("_entries", SqliteEntries.record_recall)
    get_many = answered_by("_entries", SqliteEntries.get_many)
    ranking_stats = answered_by("_entries", SqliteEntries.ranking_stats)
    set_metadata = answered_by("_entries", SqliteEntries.set_metadata)
    apply_tombstones = answered_by("_tombstones", SqlTombstones.apply_tombstones)

    # EntryBrowser
    browse = answered_by("_browsing", SqlEntryBrowsing.browse)
    tallies = answered_by("_browsing", SqlEntryBrowsing.tallies)

    # AuditOutbox and AuditWatermark
    queue_markdown = answered_by("_outbox", SqliteMarkdownOutbox.queue_markdown)
    pending_audit = answered_by("_outbox", SqliteMarkdownOutbox.pending_audit)
    audit_done = answered_by("_outbox", SqliteMarkdownOutbox.audit_done)
    audit_failed = answered_by("_outbox", SqliteMarkdownOutbox.audit_failed)
    markdown_ahead = answered_by("_outbox", SqliteMarkdownOutbox.markdown_ahead)
    reopen_imports = answered_by("_outbox", SqliteMarkdownOutbox.reopen_imports)
    caught_up = answered_by("_outbox", SqliteMarkdownOutbox.caught_up)

    # EmbeddingStore, BatchVectorStore, StagingVectorStore, QueryVectorCache
    set_vector = answered_by("_vectors", SqliteVectors.set_vector)
    set_vectors = answered_by("_vectors", SqliteVectors.set_vectors)
    vectors = answered_by("_vectors", SqliteVectors.vectors)
    vectors_after = answered_by("_vectors", SqliteVectors.vectors_after)
    vectors_version = answered_by("_vectors", SqliteVectors.vectors_version)
    pending_ids = answered_by("_vectors", SqliteVectors.pending_ids)
    start_staging = answered_by("_staging", SqlStagedVectors.start_staging)
    unstaged_ids = answered_by("_staging", SqlStagedVectors.unstaged_ids)
    set_staged_vector = answered_by("_staging", SqlStagedVectors.set_staged_vector)
    promote_staged = answered_by("_staging", SqlStagedVectors.promote_staged)
    cached_query_vector = answered_by("_query_vectors", SqlQueryVectors.cached_query_vector)
    cache_query_vector = answered_by("_query_vectors", SqlQueryVectors.cache_query_vector)

    # KeywordIndex and ReferenceIndex
    keyword_search_available = answered_by("_search", SqliteKeywordSearch.keyword_search_available)
    keyword_scale = answered_by("_search", SqliteKeywordSearch.keyword_scale)
    keyword_search = answered_by("_search", SqliteKeywordSearch.keyword_search)
    cited_files = answered_by("_references", SqliteReferences.cited_files)

