"""Query-vector cache port: a session whose context did not change does not need the model again."""

from __future__ import annotations

from typing import Optional, Protocol, Sequence, runtime_checkable


@runtime_checkable
class QueryVectorCache(Protocol):
    """Query vectors by (embedding space, query text), bounded in size; only a hash of the text is kept."""

    def cached_query_vector(self, space: str, query: str) -> Optional[list[float]]:
        """The vector stored for this query in this space, or None."""
        ...

    def cache_query_vector(self, space: str, query: str, vector: Sequence[float]) -> None:
        """Remember the vector (dropping the oldest beyond the bound and every other space's vectors)."""
        ...
