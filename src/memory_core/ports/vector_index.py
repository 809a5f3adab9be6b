"""Vector index port: cosine similarity of a query against every stored vector."""

from __future__ import annotations

from typing import Protocol, Sequence, runtime_checkable


@runtime_checkable
class VectorIndex(Protocol):
    """Brute-force similarity search over the stored vectors of one embedding space."""

    def similarities(self, query: Sequence[float]) -> dict[str, float]:
        """Return {entry id: cosine similarity} for every entry that has a vector."""
        ...
