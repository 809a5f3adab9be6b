"""NumpyVectorIndex: all stored vectors as one float32 matrix, one matmul per query."""

from __future__ import annotations

import sys
from typing import Sequence

import numpy as np

from memory_core.ports.entry_store import EmbeddingStore


class NumpyVectorIndex:
    """Implements VectorIndex by brute-force cosine similarity over L2-normalised vectors."""

    def __init__(self, store: EmbeddingStore, dimensions: int) -> None:
        self._store = store
        self._dimensions = dimensions

    def _matrix(self) -> tuple[list[str], np.ndarray]:
        width = self._dimensions * 4
        ids: list[str] = []
        blobs: list[bytes] = []
        skipped = 0
        for entry_id, blob in self._store.vectors():
            if len(blob) != width:
                skipped += 1
                continue
            ids.append(entry_id)
            blobs.append(bytes(blob))
        if skipped:
            print(f"iflow-memory: ignored {skipped} vectors of the wrong size", file=sys.stderr)
        if not ids:
            return [], np.zeros((0, self._dimensions), dtype=np.float32)
        matrix = np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(ids), self._dimensions)
        return ids, matrix

    def similarities(self, query: Sequence[float]) -> dict[str, float]:
        """Return {id: cosine} for every stored vector of the right size."""
        ids, matrix = self._matrix()
        if not ids:
            return {}
        vector = np.asarray(query, dtype=np.float32)
        if vector.shape != (self._dimensions,):
            raise ValueError(f"query has {vector.shape} dims, index has {self._dimensions}")
        norms = np.linalg.norm(matrix, axis=1) * float(np.linalg.norm(vector))
        # Stored vectors are normalised on write; dividing again keeps foreign or legacy rows honest.
        scores = (matrix @ vector) / np.where(norms > 0, norms, 1.0)
        return dict(zip(ids, scores.astype(float).tolist()))


def to_bytes(vector: Sequence[float]) -> bytes:
    """Serialise a vector as little-endian float32 bytes (design TD2)."""
    return np.asarray(vector, dtype="<f4").tobytes()
