"""The query-vector cache, written once for both stores: a query's vector is kept under its text's hash, the
newest QUERY_CACHE_SIZE of the current embedding space stay, other spaces' go."""

from __future__ import annotations

import time
from typing import Any, Callable, NamedTuple, Optional, Sequence

from memory_adapters.store.sql.connection import SqlConnection
from memory_adapters.vectors.float32 import pack_vector, unpack_vector

QUERY_CACHE_SIZE = 256


def query_hash(query: str) -> str:
    """Query texts are not stored, only their hash (they may quote a spec or file names)."""
    import hashlib  # ~2 ms (OpenSSL): a keyword-only session start never hashes a query

    return hashlib.sha256(query.encode("utf-8", "surrogatepass")).hexdigest()


class QueryVectorSql(NamedTuple):
    """One store's spelling of the cache's statements."""

    mark: str  # the driver's parameter placeholder
    store: str  # insert or replace one row: (space, query_hash, vector, stored_at)
    row_key: str  # the columns that name one row: `rowid`, or `space, query_hash`
    as_bytes: Callable[[bytes], Any]  # a vector's bytes as the driver's binary parameter


class SqlQueryVectors:
    """QueryVectorCache over the `query_vectors` table."""

    def __init__(self, connection: SqlConnection, sql: QueryVectorSql) -> None:
        self._connection = connection
        self._sql = sql

    def cached_query_vector(self, space: str, query: str) -> Optional[list[float]]:
        """The vector remembered for this query text in this embedding space, or None."""
        mark = self._sql.mark
        rows = self._connection.read(f"SELECT vector FROM query_vectors WHERE space = {mark} AND query_hash = {mark}",
                                     (space, query_hash(query)))
        value = rows[0][0] if rows else None
        if not isinstance(value, (bytes, bytearray, memoryview)) or len(value) % 4:
            return None  # a row edited by hand, or cut short
        return unpack_vector(bytes(value))

    def cache_query_vector(self, space: str, query: str, vector: Sequence[float]) -> None:
        """Remember a query vector; keeps the newest QUERY_CACHE_SIZE of this space and drops other spaces'."""
        sql, mark = self._sql, self._sql.mark
        row = (space, query_hash(query), sql.as_bytes(pack_vector(vector)), time.time())

        def work(conn: Any) -> None:
            conn.execute(sql.store, row)
            conn.execute(f"DELETE FROM query_vectors WHERE space <> {mark}", (space,))
            conn.execute(f"DELETE FROM query_vectors WHERE ({sql.row_key}) NOT IN (SELECT {sql.row_key} "
                         f"FROM query_vectors ORDER BY stored_at DESC LIMIT {mark})", (QUERY_CACHE_SIZE,))

        self._connection.transaction(work)
