"""Vector index port: cosine similarity of a query against every stored vector."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Protocol, Sequence, runtime_checkable

if TYPE_CHECKING:
    from memory_core.session.deadline import Deadline


@runtime_checkable
class VectorIndex(Protocol):
    """Brute-force similarity search over the stored vectors of one embedding space."""

    def similarities(self, query: Sequence[float]) -> dict[str, float]:
        """Return {entry id: cosine similarity} for every entry that has a vector."""
        ...


@runtime_checkable
class PreparableVectorIndex(VectorIndex, Protocol):
    """A vector index that can load its vectors ahead of the query, giving up at a deadline."""

    def prepare(self, deadline: Optional["Deadline"] = None) -> bool:
        """Load the vectors now; False when they could not be loaded before the deadline."""
        ...
