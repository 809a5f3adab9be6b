"""PostgresVectorIndex: cosine similarity computed by PostgreSQL (pgvector) where the vectors live."""

from __future__ import annotations

from typing import Optional, Protocol, Sequence


class ServerSimilarities(Protocol):
    """What the index asks of the store (a PostgresEntryStore): similarities the server computes."""

    def cosine_similarities(self, query: Sequence[float]) -> dict[str, float]:
        """{id: cosine similarity to `query`} for every stored vector of the query's width."""
        ...

    def nearest(self, query: Sequence[float], limit: int) -> dict[str, float]:
        """{id: cosine similarity} of about the `limit` stored vectors nearest to `query`."""
        ...


class PostgresVectorIndex:
    """Implements VectorIndex over a PostgresEntryStore: exact similarities for every stored vector of the
    index's width, and the nearest few from the HNSW index (`nearest`). With `candidates`, `similarities`
    answers for that many nearest vectors only (a session start's candidates: never every row at 1M)."""

    def __init__(self, store: ServerSimilarities, dimensions: int, candidates: Optional[int] = None) -> None:
        self._store = store
        self._dimensions = int(dimensions)
        self._candidates = candidates

    def _checked(self, query: Sequence[float]) -> list[float]:
        vector = [float(v) for v in query]
        if len(vector) != self._dimensions:
            raise ValueError(f"query has {len(vector)} dims, index has {self._dimensions}")
        return vector

    def similarities(self, query: Sequence[float]) -> dict[str, float]:
        """Return {id: cosine} for every stored vector of the right size (the nearest `candidates` when set)."""
        if self._candidates is not None:
            return self.nearest(query, self._candidates)
        return self._store.cosine_similarities(self._checked(query))

    def nearest(self, query: Sequence[float], limit: int) -> dict[str, float]:
        """Return {id: cosine} of about the `limit` most similar stored vectors (HNSW: approximate)."""
        return self._store.nearest(self._checked(query), limit)

    def refresh(self) -> None:
        """Nothing to refresh: the vectors and their HNSW index live on the server, no cache beside them."""
