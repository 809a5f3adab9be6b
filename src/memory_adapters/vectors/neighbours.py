"""Every stored vector's closest others, for the review's near-duplicate queue (ADR 26): the normalised vectors
multiplied in blocks of rows, so a large store never holds the whole similarity matrix at once."""

from __future__ import annotations

from collections import Counter

import numpy as np

from memory_adapters.vectors.float32 import StoredVectors

BLOCK_ROWS = 512


def closest_neighbours(stored: StoredVectors, min_cosine: float, per_entry: int) -> dict[str, dict[str, float]]:
    """{entry id: {other id: cosine}} of each entry's `per_entry` closest others at `min_cosine` or more (vectors
    of another length than most are left out: a space being replaced)."""
    pairs = [(entry_id, np.frombuffer(data, dtype="<f4")) for entry_id, data in stored.vectors()]
    if len(pairs) < 2 or per_entry < 1:
        return {}
    dimensions = Counter(len(vector) for _, vector in pairs).most_common(1)[0][0]
    ids = [entry_id for entry_id, vector in pairs if len(vector) == dimensions]
    matrix = np.stack([vector for _, vector in pairs if len(vector) == dimensions]).astype(np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix /= np.where(norms == 0, 1, norms)
    keep = min(per_entry, len(ids) - 1)
    found: dict[str, dict[str, float]] = {}
    for start in range(0, len(ids), BLOCK_ROWS):
        block = matrix[start:start + BLOCK_ROWS] @ matrix.T
        for offset, row in enumerate(block):
            row[start + offset] = -np.inf  # an entry is not its own neighbour
            top = np.argpartition(-row, keep - 1)[:keep] if keep else []
            close = {ids[j]: float(row[j]) for j in top if row[j] >= min_cosine}
            if close:
                found[ids[start + offset]] = close
    return found
