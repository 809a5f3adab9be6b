"""Vectors in the SQLite store: one per entry (float32 BLOBs), and the SQLite spelling of the staged set and of
the query-vector cache that `sql.staging` and `sql.query_vectors` write once for both stores."""

from __future__ import annotations

from typing import Iterable, Sequence

from memory_adapters.store.sql.query_vectors import QueryVectorSql
from memory_adapters.store.sql.staging import StagingSql
from memory_adapters.store.sqlite.connection import SqliteConnection
from memory_adapters.store.sqlite.rows import SET_META, blob
from memory_adapters.vectors.float32 import pack_vector

QUERY_VECTOR_SQL = QueryVectorSql(
    mark="?", row_key="rowid", as_bytes=blob,
    store="INSERT OR REPLACE INTO query_vectors(space, query_hash, vector, stored_at) VALUES (?, ?, ?, ?)")

STAGING_SQL = StagingSql(
    set_meta=SET_META,
    unstaged="SELECT e.id FROM entries e LEFT JOIN staged_vectors s ON s.id = e.id WHERE s.id IS NULL LIMIT ?",
    stage="INSERT OR REPLACE INTO staged_vectors(id, vector) SELECT id, ? FROM entries WHERE id = ?",
    incomplete="SELECT COUNT(*) FROM entries e LEFT JOIN staged_vectors s ON s.id = e.id WHERE s.id IS NULL",
    swap="UPDATE entries SET embedding = (SELECT vector FROM staged_vectors s WHERE s.id = entries.id)",
    forget_staged_space="DELETE FROM _metadata WHERE key LIKE 'staged_embedding_%'",
    vector=lambda vector: blob(pack_vector(vector)))


class SqliteVectors:
    """EmbeddingStore and BatchVectorStore over `entries.embedding`, and the chunked reads the numpy index loads."""

    def __init__(self, connection: SqliteConnection) -> None:
        self._connection = connection

    def set_vector(self, entry_id: str, vector: Sequence[float]) -> None:
        """Store one entry's embedding (as float32 bytes)."""
        self._connection.write("UPDATE entries SET embedding = ? WHERE id = ?", (blob(pack_vector(vector)), entry_id))

    def set_vectors(self, items: Sequence[tuple[str, Sequence[float]]]) -> None:
        """Store several embeddings in one short transaction."""
        rows = [(blob(pack_vector(vector)), entry_id) for entry_id, vector in items]
        self._connection.transaction(lambda conn: conn.executemany("UPDATE entries SET embedding = ? WHERE id = ?",
                                                                   rows))

    def vectors(self) -> Iterable[tuple[str, bytes]]:
        """Return (id, float32 bytes) for every entry that has an embedding."""
        return self._connection.read("SELECT id, embedding FROM entries WHERE embedding IS NOT NULL")

    def vectors_after(self, rowid: int, limit: int) -> list[tuple[int, str, bytes]]:
        """(rowid, id, float32 bytes) of up to `limit` entries with a vector, in rowid order after `rowid`."""
        return self._connection.read("SELECT rowid, id, embedding FROM entries WHERE embedding IS NOT NULL "
                                     "AND rowid > ? ORDER BY rowid LIMIT ?", (rowid, limit))

    def vectors_version(self) -> str:
        """A value that changes whenever any stored vector changes (bumped by triggers)."""
        rows = dict(self._connection.read("SELECT key, value FROM _metadata "
                                          "WHERE key IN ('vectors_version', 'database_id')"))
        return f"{rows.get('database_id', '')}:{rows.get('vectors_version', '')}"

    def pending_ids(self, limit: int) -> list[str]:
        """Return ids of entries still waiting for an embedding."""
        return [r[0] for r in self._connection.read("SELECT id FROM entries WHERE embedding IS NULL LIMIT ?",
                                                    (limit,))]
