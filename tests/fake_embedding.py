"""FakeEmbedder and FakeVectorIndex: deterministic vectors from the words of a text, compared in pure Python."""

from __future__ import annotations

import hashlib
import math
import re
from typing import Sequence

from memory_adapters.vectors.float32 import unpack_vector
from tests.fake_entry_store import InMemoryEntryStore


class FakeEmbedder:
    """Deterministic bag-of-words hashing embedder: shared words give positive cosine."""

    def __init__(self, dimensions: int = 64, provider_name: str = "fake", model_name: str = "fake-bow") -> None:
        self.dimensions = dimensions
        self.provider_name = provider_name
        self.model_name = model_name
        self.calls: list[tuple[str, list[str]]] = []

    def _vector(self, text: str) -> list[float]:
        vec = [0.0] * self.dimensions
        for word in re.findall(r"[a-z0-9]+", text.lower()):
            slot = int(hashlib.sha256(word.encode()).hexdigest(), 16) % self.dimensions
            vec[slot] += 1.0
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        return [v / norm for v in vec]

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed documents."""
        self.calls.append(("documents", list(texts)))
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        """Embed a query."""
        self.calls.append(("query", [text]))
        return self._vector(text)


class FakeVectorIndex:
    """VectorIndex over a store's vectors in pure Python."""

    def __init__(self, store: InMemoryEntryStore, dimensions: int) -> None:
        self._store = store
        self._dimensions = dimensions

    def similarities(self, query: Sequence[float]) -> dict[str, float]:
        """Dot products of the query with every stored vector."""
        out = {}
        for entry_id, blob in self._store.vectors():
            if len(blob) != 4 * self._dimensions:
                continue
            vec = unpack_vector(blob)
            norm = math.sqrt(sum(a * a for a in vec)) * math.sqrt(sum(b * b for b in query))
            out[entry_id] = sum(a * b for a, b in zip(vec, query)) / norm if norm else 0.0
        return out
