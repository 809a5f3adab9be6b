"""Vectors in the PostgreSQL store (pgvector): one per entry, a staged set for re-embedding, remembered query
vectors, and cosine similarity computed by the server."""

from __future__ import annotations

import array
import hashlib
import math
import sys
import time
from typing import Any, Optional, Sequence

from memory_adapters.vectors.float32 import pack_vector, unpack_vector
from memory_adapters.store.postgres.connection import PostgresConnection
from memory_adapters.store.postgres.entries import SET_META
from memory_adapters.store.postgres.schema import ensure_hnsw_index
from memory_core.embedding.space import STAGED_KEYS, space_metadata

QUERY_CACHE_SIZE = 256
# pgvector's binary form: int16 dimensions, int16 unused, then big-endian float32 values.
_VECTOR_BYTES = "vector_send(embedding)"


def vector_literal(vector: Sequence[float]) -> str:
    """A vector as pgvector's text input (`[1.0,2.5]`); each value rounds to float32 as `pack_vector` does."""
    return "[" + ",".join(repr(float(v)) for v in vector) + "]"


def float32_bytes(sent: bytes) -> bytes:
    """pgvector's binary form as the little-endian float32 bytes every store hands out."""
    values = array.array("f")
    values.frombytes(bytes(sent[4:]))
    if sys.byteorder == "little":
        values.byteswap()
    return values.tobytes()


def _query_hash(query: str) -> str:
    """Query texts are not stored, only their hash (they may quote a spec or file names)."""
    return hashlib.sha256(query.encode("utf-8", "surrogatepass")).hexdigest()


class PostgresVectors(PostgresConnection):
    """EmbeddingStore, BatchVectorStore, StagingVectorStore and QueryVectorCache over `entries.embedding`,
    `staged_vectors` and `query_vectors`."""

    def set_vector(self, entry_id: str, vector: Sequence[float]) -> None:
        """Store one entry's embedding (an unknown id stores nothing)."""
        self._write("UPDATE entries SET embedding = %s::vector WHERE id = %s", (vector_literal(vector), entry_id))

    def set_vectors(self, items: Sequence[tuple[str, Sequence[float]]]) -> None:
        """Store several embeddings in one short transaction."""
        rows = [(vector_literal(vector), entry_id) for entry_id, vector in items]
        self._in_tx(lambda conn: conn.cursor().executemany(
            "UPDATE entries SET embedding = %s::vector WHERE id = %s", rows))

    def vectors(self) -> list[tuple[str, bytes]]:
        """Return (id, float32 bytes) for every entry that has an embedding."""
        rows = self._read(f"SELECT id, {_VECTOR_BYTES} FROM entries WHERE embedding IS NOT NULL ORDER BY seq")
        return [(entry_id, float32_bytes(sent)) for entry_id, sent in rows]

    def vectors_after(self, seq: int, limit: int) -> list[tuple[int, str, bytes]]:
        """(seq, id, float32 bytes) of up to `limit` entries with a vector, in storing order after `seq`."""
        rows = self._read(f"SELECT seq, id, {_VECTOR_BYTES} FROM entries WHERE embedding IS NOT NULL AND seq > %s "
                          "ORDER BY seq LIMIT %s", (seq, limit))
        return [(number, entry_id, float32_bytes(sent)) for number, entry_id, sent in rows]

    def vectors_version(self) -> str:
        """A value that changes whenever any stored vector changes (bumped by triggers)."""
        rows = dict(self._read("SELECT key, value FROM _metadata WHERE key IN ('vectors_version', 'database_id')"))
        return f"{rows.get('database_id', '')}:{rows.get('vectors_version', '')}"

    def pending_ids(self, limit: int) -> list[str]:
        """Return ids of entries still waiting for an embedding."""
        return [r[0] for r in self._read("SELECT id FROM entries WHERE embedding IS NULL ORDER BY seq LIMIT %s",
                                         (limit,))]

    def cosine_similarities(self, query: Sequence[float]) -> dict[str, float]:
        """{id: cosine similarity to `query`} for every stored vector of the query's width (exact: every row)."""
        if not any(query):
            return {r[0]: 0.0 for r in self._read("SELECT id FROM entries WHERE vector_dims(embedding) = %s",
                                                  (len(query),))}
        rows = self._read("SELECT id, 1 - (embedding <=> %s::vector) FROM entries "
                          "WHERE vector_dims(embedding) = %s", (vector_literal(query), len(query)))
        return {entry_id: 0.0 if math.isnan(score) else score for entry_id, score in rows}

    def nearest(self, query: Sequence[float], limit: int) -> dict[str, float]:
        """{id: cosine similarity} of about the `limit` stored vectors nearest to `query`, from the HNSW index
        (approximate; exact when no index covers this width)."""
        dims = len(query)

        def work(conn: Any) -> list[tuple]:
            conn.execute(f"SET LOCAL hnsw.ef_search = {max(40, min(int(limit), 1000))}")
            return conn.execute(
                f"SELECT id, 1 - (embedding::vector({dims}) <=> %s::vector({dims})) AS score FROM entries "
                f"WHERE vector_dims(embedding) = {dims} ORDER BY embedding::vector({dims}) <=> %s::vector({dims}) "
                "LIMIT %s", (vector_literal(query), vector_literal(query), limit)).fetchall()

        return {entry_id: 0.0 if math.isnan(score) else score for entry_id, score in self._in_tx(work)}

    def cached_query_vector(self, space: str, query: str) -> Optional[list[float]]:
        """The vector remembered for this query text in this embedding space, or None."""
        rows = self._read("SELECT vector FROM query_vectors WHERE space = %s AND query_hash = %s",
                          (space, _query_hash(query)))
        if not rows or len(rows[0][0]) % 4:
            return None
        return unpack_vector(bytes(rows[0][0]))

    def cache_query_vector(self, space: str, query: str, vector: Sequence[float]) -> None:
        """Remember a query vector; keeps the newest QUERY_CACHE_SIZE of this space and drops other spaces'."""
        def work(conn: Any) -> None:
            conn.execute("INSERT INTO query_vectors (space, query_hash, vector, stored_at) VALUES (%s, %s, %s, %s) "
                         "ON CONFLICT (space, query_hash) DO UPDATE SET vector = excluded.vector, "
                         "stored_at = excluded.stored_at", (space, _query_hash(query), pack_vector(vector), time.time()))
            conn.execute("DELETE FROM query_vectors WHERE space <> %s", (space,))
            conn.execute("DELETE FROM query_vectors WHERE (space, query_hash) NOT IN (SELECT space, query_hash "
                         "FROM query_vectors ORDER BY stored_at DESC LIMIT %s)", (QUERY_CACHE_SIZE,))

        self._in_tx(work)

    # -- re-embedding into a new space -------------------------------------------------------------
    def start_staging(self, space) -> None:
        """Drop staged vectors and record the space being built, in one transaction."""
        def work(conn: Any) -> None:
            conn.execute("DELETE FROM staged_vectors")
            for row in space_metadata(space, STAGED_KEYS):
                conn.execute(SET_META, row)

        self._in_tx(work)

    def unstaged_ids(self, limit: int) -> list[str]:
        """Ids of entries that have no staged vector yet."""
        return [r[0] for r in self._read(
            "SELECT e.id FROM entries e WHERE NOT EXISTS (SELECT 1 FROM staged_vectors s WHERE s.id = e.id) "
            "ORDER BY e.seq LIMIT %s", (limit,))]

    def set_staged_vector(self, entry_id: str, vector: Sequence[float]) -> None:
        """Store one vector of the space being built (an unknown id stores nothing)."""
        self._write("INSERT INTO staged_vectors (id, vector) SELECT id, %s::vector FROM entries WHERE id = %s "
                    "ON CONFLICT (id) DO UPDATE SET vector = excluded.vector", (vector_literal(vector), entry_id))

    def promote_staged(self, space) -> bool:
        """Swap the staged set in and pin its space, only if it covers every entry."""
        def work(conn: Any) -> bool:
            conn.execute("LOCK TABLE entries IN SHARE ROW EXCLUSIVE MODE")  # no entry appears during the swap
            if conn.execute("SELECT EXISTS (SELECT 1 FROM entries e WHERE NOT EXISTS "
                            "(SELECT 1 FROM staged_vectors s WHERE s.id = e.id))").fetchone()[0]:
                return False
            conn.execute("UPDATE entries e SET embedding = s.vector FROM staged_vectors s WHERE s.id = e.id")
            conn.execute("DELETE FROM staged_vectors")
            conn.execute("DELETE FROM query_vectors")  # query vectors of the old space must never be compared
            for row in space_metadata(space):
                conn.execute(SET_META, row)
            conn.execute("DELETE FROM _metadata WHERE key LIKE 'staged_embedding_%%'")
            ensure_hnsw_index(conn, space.dimensions)
            return True

        return self._in_tx(work)
