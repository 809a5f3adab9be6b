"""Staging vector store port: re-embedding builds a second vector set aside and swaps it in at once."""

from __future__ import annotations

from typing import Protocol, Sequence, runtime_checkable

from memory_core.ports.embedder import EmbeddingSpace


@runtime_checkable
class StagingVectorStore(Protocol):
    """A store that can build a second vector set aside and swap it in atomically (re-embedding)."""

    def start_staging(self, space: EmbeddingSpace) -> None:
        """Forget any staged vectors and record the space being built."""
        ...

    def unstaged_ids(self, limit: int) -> list[str]:
        """Return up to `limit` ids of entries without a staged vector."""
        ...

    def set_staged_vector(self, entry_id: str, vector: Sequence[float]) -> None:
        """Store a vector of the space being built (an unknown id stores nothing)."""
        ...

    def promote_staged(self, space: EmbeddingSpace) -> bool:
        """If every entry has a staged vector, swap them in and pin `space` in one transaction."""
        ...
