"""SqliteEntryStore: the entry store, FTS5 keyword index and vector storage in one SQLite file.

Each concern is its own module along the lines the ports draw: the connection and its errors
(`sqlite_connection`), rows ⇄ entries (`sqlite_rows`), entries (`sqlite_entries`), the markdown outbox
(`sqlite_outbox`), vectors and spaces (`sqlite_vectors`), full-text search (`sqlite_keyword_search`), cited
files (`sqlite_references`); this class puts them on one connection.
"""

from __future__ import annotations

from memory_adapters.store.sqlite.connection import BUSY_TIMEOUT_MS, begin_with_retry, fts5_compiled_in, from_text, to_text
from memory_adapters.store.sqlite.outbox import SqliteMarkdownOutbox
from memory_adapters.store.sqlite.keyword_search import SqliteKeywordSearch
from memory_adapters.store.sqlite.references import SqliteReferences
from memory_adapters.store.sqlite.vectors import QUERY_CACHE_SIZE, SqliteVectors


class SqliteEntryStore(SqliteMarkdownOutbox, SqliteVectors, SqliteKeywordSearch, SqliteReferences):
    """Implements EntryStore, AuditOutbox, KeywordIndex, ReferenceIndex, EmbeddingStore, StagingVectorStore and
    QueryVectorCache over one SQLite database file (WAL, busy timeout, short transactions, numbered migrations)."""


__all__ = ["BUSY_TIMEOUT_MS", "QUERY_CACHE_SIZE", "SqliteEntryStore", "begin_with_retry", "fts5_compiled_in",
           "from_text", "to_text"]
