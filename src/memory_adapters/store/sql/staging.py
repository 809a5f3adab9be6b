"""Re-embedding into a new space, written once for both stores: vectors of the new space are staged beside the
live ones and swapped in, in one transaction, only when every entry has one."""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Sequence

from memory_adapters.store.sql.connection import SqlConnection
from memory_core.embedding.space import STAGED_KEYS, space_metadata
from memory_core.ports.embedder import EmbeddingSpace


class StagingSql(NamedTuple):
    """One store's spelling of the staging statements."""

    set_meta: str  # (key, value): write one `_metadata` value
    unstaged: str  # (limit): ids of entries that have no staged vector yet
    stage: str  # (vector, id): store one staged vector of a stored entry
    incomplete: str  # one row, true (or non-zero) when some entry has no staged vector
    swap: str  # every entry takes its staged vector
    forget_staged_space: str  # delete the `staged_embedding_*` metadata
    vector: Callable[[Sequence[float]], Any]  # a vector as the driver's parameter
    lock: str = ""  # a statement that keeps new entries out during the swap, where the database needs one


class SqlStagedVectors:
    """StagingVectorStore over `staged_vectors`; `swapped(conn, space)` runs in the swap's transaction (PostgreSQL
    builds the new width's vector index there)."""

    def __init__(self, connection: SqlConnection, sql: StagingSql,
                 swapped: Callable[[Any, EmbeddingSpace], None] = lambda conn, space: None) -> None:
        self._connection = connection
        self._sql = sql
        self._swapped = swapped

    def start_staging(self, space: EmbeddingSpace) -> None:
        """Drop staged vectors and record the space being built, in one transaction."""
        def work(conn: Any) -> None:
            conn.execute("DELETE FROM staged_vectors")
            for row in space_metadata(space, STAGED_KEYS):
                conn.execute(self._sql.set_meta, row)

        self._connection.transaction(work)

    def unstaged_ids(self, limit: int) -> list[str]:
        """Ids of entries that have no staged vector yet."""
        return [r[0] for r in self._connection.read(self._sql.unstaged, (limit,))]

    def set_staged_vector(self, entry_id: str, vector: Sequence[float]) -> None:
        """Store one vector of the space being built (an unknown id stores nothing)."""
        self._connection.write(self._sql.stage, (self._sql.vector(vector), entry_id))

    def promote_staged(self, space: EmbeddingSpace) -> bool:
        """Swap the staged set in and pin its space, only if it covers every entry."""
        sql = self._sql

        def work(conn: Any) -> bool:
            if sql.lock:
                conn.execute(sql.lock)
            if conn.execute(sql.incomplete).fetchone()[0]:
                return False
            conn.execute(sql.swap)
            conn.execute("DELETE FROM staged_vectors")
            conn.execute("DELETE FROM query_vectors")  # query vectors of the old space must never be compared
            for row in space_metadata(space):
                conn.execute(sql.set_meta, row)
            conn.execute(sql.forget_staged_space)
            self._swapped(conn, space)
            return True

        return self._connection.transaction(work)
