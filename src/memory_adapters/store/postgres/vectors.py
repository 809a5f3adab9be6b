"""Vectors in the PostgreSQL store (pgvector): one per entry, cosine similarity computed by the server, and the
PostgreSQL spelling of the staged set and of the query-vector cache that `sql.staging` and `sql.query_vectors`
write once for both stores."""

from __future__ import annotations

import array
import math
import sys
from typing import Any, Sequence

from memory_adapters.store.postgres.connection import PostgresConnection
from memory_adapters.store.postgres.rows import SET_META
from memory_adapters.store.postgres.schema import ensure_hnsw_index
from memory_adapters.store.sql.query_vectors import QueryVectorSql
from memory_adapters.store.sql.staging import StagingSql
from memory_core.ports.embedder import EmbeddingSpace

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


QUERY_VECTOR_SQL = QueryVectorSql(
    mark="%s", row_key="space, query_hash", as_bytes=bytes,
    store="INSERT INTO query_vectors (space, query_hash, vector, stored_at) VALUES (%s, %s, %s, %s) "
          "ON CONFLICT (space, query_hash) DO UPDATE SET vector = excluded.vector, stored_at = excluded.stored_at")

STAGING_SQL = StagingSql(
    set_meta=SET_META,
    unstaged="SELECT e.id FROM entries e WHERE NOT EXISTS (SELECT 1 FROM staged_vectors s WHERE s.id = e.id) "
             "ORDER BY e.seq LIMIT %s",
    stage="INSERT INTO staged_vectors (id, vector) SELECT id, %s::vector FROM entries WHERE id = %s "
          "ON CONFLICT (id) DO UPDATE SET vector = excluded.vector",
    incomplete="SELECT EXISTS (SELECT 1 FROM entries e WHERE NOT EXISTS "
               "(SELECT 1 FROM staged_vectors s WHERE s.id = e.id))",
    swap="UPDATE entries e SET embedding = s.vector FROM staged_vectors s WHERE s.id = e.id",
    forget_staged_space="DELETE FROM _metadata WHERE key LIKE 'staged_embedding_%%'",
    vector=vector_literal,
    lock="LOCK TABLE entries IN SHARE ROW EXCLUSIVE MODE")  # no entry appears during the swap


def index_new_width(conn: Any, space: EmbeddingSpace) -> None:
    """After a swap: the HNSW index of the new space's width (in the swap's transaction)."""
    ensure_hnsw_index(conn, space.dimensions)


class PostgresVectors:
    """EmbeddingStore and BatchVectorStore over `entries.embedding`, the chunked reads of a vector cache, and the
    similarities the server computes (exact, or the nearest few from the HNSW index)."""

    def __init__(self, connection: PostgresConnection) -> None:
        self._connection = connection

    def set_vector(self, entry_id: str, vector: Sequence[float]) -> None:
        """Store one entry's embedding (an unknown id stores nothing)."""
        self._connection.write("UPDATE entries SET embedding = %s::vector WHERE id = %s",
                               (vector_literal(vector), entry_id))

    def set_vectors(self, items: Sequence[tuple[str, Sequence[float]]]) -> None:
        """Store several embeddings in one short transaction."""
        rows = [(vector_literal(vector), entry_id) for entry_id, vector in items]
        self._connection.transaction(lambda conn: conn.cursor().executemany(
            "UPDATE entries SET embedding = %s::vector WHERE id = %s", rows))

    def vectors(self) -> list[tuple[str, bytes]]:
        """Return (id, float32 bytes) for every entry that has an embedding."""
        rows = self._connection.read(f"SELECT id, {_VECTOR_BYTES} FROM entries WHERE embedding IS NOT NULL "
                                     "ORDER BY seq")
        return [(entry_id, float32_bytes(sent)) for entry_id, sent in rows]

    def vectors_after(self, seq: int, limit: int) -> list[tuple[int, str, bytes]]:
        """(seq, id, float32 bytes) of up to `limit` entries with a vector, in storing order after `seq`."""
        rows = self._connection.read(f"SELECT seq, id, {_VECTOR_BYTES} FROM entries WHERE embedding IS NOT NULL "
                                     "AND seq > %s ORDER BY seq LIMIT %s", (seq, limit))
        return [(number, entry_id, float32_bytes(sent)) for number, entry_id, sent in rows]

    def vectors_version(self) -> str:
        """A value that changes whenever any stored vector changes (bumped by triggers)."""
        rows = dict(self._connection.read("SELECT key, value FROM _metadata "
                                          "WHERE key IN ('vectors_version', 'database_id')"))
        return f"{rows.get('database_id', '')}:{rows.get('vectors_version', '')}"

    def pending_ids(self, limit: int) -> list[str]:
        """Return ids of entries still waiting for an embedding."""
        rows = self._connection.read("SELECT id FROM entries WHERE embedding IS NULL ORDER BY seq LIMIT %s", (limit,))
        return [r[0] for r in rows]

    def cosine_similarities(self, query: Sequence[float]) -> dict[str, float]:
        """{id: cosine similarity to `query`} for every stored vector of the query's width (exact: every row)."""
        if not any(query):
            return {r[0]: 0.0 for r in self._connection.read("SELECT id FROM entries WHERE vector_dims(embedding) = %s",
                                                  (len(query),))}
        rows = self._connection.read("SELECT id, 1 - (embedding <=> %s::vector) FROM entries "
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

        return {entry_id: 0.0 if math.isnan(score) else score for entry_id, score in self._connection.transaction(work)}
