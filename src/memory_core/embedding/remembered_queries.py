"""An embedder that keeps the vectors of its last few queries: a long-running host asked again embeds once."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Sequence

from memory_core.ports.embedder import Embedder

REMEMBERED_QUERIES = 128


class RememberedQueries:
    """Implements Embedder over another one, keeping the vectors of its last few queries in memory: a host
    asked the same thing again embeds it once."""

    def __init__(self, inner: Embedder, size: int = REMEMBERED_QUERIES) -> None:
        self.inner = inner
        self.provider_name, self.model_name, self.dimensions = inner.provider_name, inner.model_name, inner.dimensions
        self._size = size
        self._vectors: OrderedDict[str, tuple[float, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def embed_query(self, text: str) -> list[float]:
        """The vector remembered for this text, else the inner embedder's (then remembered)."""
        with self._lock:
            vector = self._vectors.get(text)
            if vector is not None:
                self._vectors.move_to_end(text)
                return list(vector)
        vector = tuple(self.inner.embed_query(text))
        with self._lock:
            self._vectors[text] = vector
            while len(self._vectors) > self._size:
                self._vectors.popitem(last=False)
        return list(vector)

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """The inner embedder's document vectors (never remembered)."""
        return self.inner.embed_documents(texts)
