"""Embedder port: turns text into vectors of one fixed embedding space (an `EmbeddingSpace`)."""

from __future__ import annotations

from dataclasses import dataclass
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


@dataclass(frozen=True)
class EmbeddingSpace:
    """One vector space: vectors are only comparable within the same space."""

    provider: str
    model: str
    dimensions: int

    @classmethod
    def of(cls, embedder: Embedder) -> "EmbeddingSpace":
        """The space an embedder produces vectors in."""
        return cls(embedder.provider_name, embedder.model_name, int(embedder.dimensions))

    @property
    def label(self) -> str:
        """Human-readable name, e.g. 'local/all-MiniLM-L6-v2 (384d)'."""
        return f"{self.provider}/{self.model} ({self.dimensions}d)"
