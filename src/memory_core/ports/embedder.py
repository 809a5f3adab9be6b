"""Embedder port: turns text into vectors of one fixed embedding space."""

from __future__ import annotations

from typing import Protocol, Sequence, runtime_checkable


@runtime_checkable
class Embedder(Protocol):
    """An embedding model; vectors it returns are plain float lists."""

    provider_name: str
    model_name: str
    dimensions: int

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed texts for storage (document side of asymmetric retrieval)."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """Embed one query (query side of asymmetric retrieval)."""
        ...
