"""The one place vectors are checked: float, finite, right size, L2-normalised, batched."""

from __future__ import annotations

import math
from typing import Sequence

from memory_core.errors import EmbeddingError, RateLimited
from memory_core.ports.embedder import Embedder

DEFAULT_BATCH_SIZE = 32


def l2_normalise(vector: Sequence[float], dimensions: int) -> list[float]:
    """Return the unit vector; a zero, non-finite or wrongly sized vector is an EmbeddingError."""
    values = [float(v) for v in vector]
    if len(values) != dimensions:
        raise EmbeddingError(f"provider returned {len(values)} dimensions, expected {dimensions}")
    norm = math.sqrt(math.fsum(v * v for v in values))
    if not math.isfinite(norm):
        raise EmbeddingError("provider returned a non-finite vector")
    if norm < 1e-9:
        raise EmbeddingError("provider returned a zero vector")
    return [v / norm for v in values]


class NormalisingEmbedder:
    """Wraps any Embedder: splits documents into native batches and normalises every vector."""

    def __init__(self, inner: Embedder, batch_size: int = DEFAULT_BATCH_SIZE) -> None:
        self.inner = inner
        self.provider_name = inner.provider_name
        self.model_name = inner.model_name
        self.dimensions = int(inner.dimensions)
        self._batch_size = max(1, batch_size)

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed documents batch by batch; an error in a batch loses only that batch."""
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            batch = list(texts[start:start + self._batch_size])
            try:
                raw = self.inner.embed_documents(batch)
            except RateLimited as exc:
                raise RateLimited(str(exc), partial=vectors) from exc
            if len(raw) != len(batch):
                raise EmbeddingError(f"provider returned {len(raw)} vectors for {len(batch)} texts")
            vectors.extend(l2_normalise(v, self.dimensions) for v in raw)
        return vectors

    def embed_query(self, text: str) -> list[float]:
        """Embed one query and normalise it."""
        return l2_normalise(self.inner.embed_query(text), self.dimensions)


def document_text(name: str, description: str, reasoning: str, keywords: Sequence[str]) -> str:
    """The text an entry is embedded from: its title, description, reasoning and keywords."""
    parts = [name.strip(), description.strip()]
    if reasoning.strip():
        parts.append(reasoning.strip())
    if keywords:
        parts.append("Keywords: " + ", ".join(keywords))
    return "\n".join(parts)
