"""Vectors in the SQLite store: one per entry, a staged set for re-embedding, and remembered query vectors."""

from __future__ import annotations

import time
from typing import Iterable, Optional, Sequence

from memory_adapters.vectors.float32 import pack_vector, unpack_vector
from memory_adapters.store.sqlite.connection import SqliteConnection
from memory_adapters.store.sqlite.entries import SET_META
from memory_adapters.store.sqlite.rows import blob
from memory_core.embedding.space import STAGED_KEYS, space_metadata

QUERY_CACHE_SIZE = 256


def _query_hash(query: str) -> str:
    """Query texts are not stored, only their hash (they may quote a spec or file names)."""
    import hashlib  # ~2 ms (OpenSSL): a keyword-only session start never hashes a query

    return hashlib.sha256(query.encode("utf-8", "surrogatepass")).hexdigest()


class SqliteVectors(SqliteConnection):
    """EmbeddingStore, BatchVectorStore, StagingVectorStore and QueryVectorCache over `entries.embedding`,
    `staged_vectors` and `query_vectors`."""

    def set_vector(self, entry_id: str, vector: Sequence[float]) -> None:
        """Store one entry's embedding (as float32 bytes)."""
        self._write("UPDATE entries SET embedding = ? WHERE id = ?", (blob(pack_vector(vector)), entry_id))

    def set_vectors(self, items: Sequence[tuple[str, Sequence[float]]]) -> None:
        """Store several embeddings in one short transaction."""
        with self._tx() as conn:
            conn.executemany("UPDATE entries SET embedding = ? WHERE id = ?",
                             [(blob(pack_vector(vector)), entry_id) for entry_id, vector in items])

    def vectors(self) -> Iterable[tuple[str, bytes]]:
        """Return (id, float32 bytes) for every entry that has an embedding."""
        return self._read("SELECT id, embedding FROM entries WHERE embedding IS NOT NULL")

    def vectors_after(self, rowid: int, limit: int) -> list[tuple[int, str, bytes]]:
        """(rowid, id, float32 bytes) of up to `limit` entries with a vector, in rowid order after `rowid`."""
        return self._read("SELECT rowid, id, embedding FROM entries WHERE embedding IS NOT NULL AND rowid > ? "
                          "ORDER BY rowid LIMIT ?", (rowid, limit))

    def vectors_version(self) -> str:
        """A value that changes whenever any stored vector changes (bumped by triggers)."""
        rows = dict(self._read("SELECT key, value FROM _metadata WHERE key IN ('vectors_version', 'database_id')"))
        return f"{rows.get('database_id', '')}:{rows.get('vectors_version', '')}"

    def pending_ids(self, limit: int) -> list[str]:
        """Return ids of entries still waiting for an embedding."""
        return [r[0] for r in self._read("SELECT id FROM entries WHERE embedding IS NULL LIMIT ?", (limit,))]

    def cached_query_vector(self, space: str, query: str) -> Optional[list[float]]:
        """The vector remembered for this query text in this embedding space, or None."""
        rows = self._read("SELECT vector FROM query_vectors WHERE space = ? AND query_hash = ?",
                          (space, _query_hash(query)))
        if not rows or not isinstance(rows[0][0], bytes) or len(rows[0][0]) % 4:
            return None
        return unpack_vector(rows[0][0])

    def cache_query_vector(self, space: str, query: str, vector: Sequence[float]) -> None:
        """Remember a query vector; keeps the newest QUERY_CACHE_SIZE of this space and drops other spaces'."""
        data = pack_vector(vector)
        with self._tx() as conn:
            conn.execute("INSERT OR REPLACE INTO query_vectors(space, query_hash, vector, stored_at) "
                         "VALUES (?, ?, ?, ?)", (space, _query_hash(query), blob(data), time.time()))
            conn.execute("DELETE FROM query_vectors WHERE space != ?", (space,))
            conn.execute("DELETE FROM query_vectors WHERE rowid NOT IN (SELECT rowid FROM query_vectors "
                         "ORDER BY stored_at DESC LIMIT ?)", (QUERY_CACHE_SIZE,))

    # -- re-embedding into a new space -------------------------------------------------------------
    def start_staging(self, space) -> None:
        """Drop staged vectors and record the space being built, in one transaction."""
        self._transaction([("DELETE FROM staged_vectors", ()),
                           *[(SET_META, row) for row in space_metadata(space, STAGED_KEYS)]])

    def unstaged_ids(self, limit: int) -> list[str]:
        """Ids of entries that have no staged vector yet."""
        return [r[0] for r in self._read(
            "SELECT e.id FROM entries e LEFT JOIN staged_vectors s ON s.id = e.id WHERE s.id IS NULL LIMIT ?",
            (limit,))]

    def set_staged_vector(self, entry_id: str, vector: Sequence[float]) -> None:
        """Store one vector of the space being built."""
        self._write("INSERT OR REPLACE INTO staged_vectors(id, vector) SELECT id, ? FROM entries WHERE id = ?",
                    (blob(pack_vector(vector)), entry_id))

    def promote_staged(self, space) -> bool:
        """Swap the staged set in and pin its space, only if it covers every entry."""
        with self._tx() as conn:
            missing = conn.execute(
                "SELECT COUNT(*) FROM entries e LEFT JOIN staged_vectors s ON s.id = e.id WHERE s.id IS NULL"
            ).fetchone()[0]
            if missing:
                return False
            conn.execute("UPDATE entries SET embedding = (SELECT vector FROM staged_vectors s WHERE s.id = entries.id)")
            conn.execute("DELETE FROM staged_vectors")
            conn.execute("DELETE FROM query_vectors")  # query vectors of the old space must never be compared
            conn.executemany(SET_META, space_metadata(space))
            conn.execute("DELETE FROM _metadata WHERE key LIKE 'staged_embedding_%'")
        return True
