"""Each stored vector's closest others, in blocks of one matrix product (numpy): what `review` scores for
near-duplicate pairs without asking the vector index once per entry."""

from __future__ import annotations

from typing import Iterable

import numpy as np

from memory_adapters.vectors.float32 import BYTES_PER_DIMENSION
from memory_adapters.vectors.numpy_vector_index import unit_rows

BLOCK_ROWS = 1024
"""Rows compared at once: a 1024 x 10k float32 block is 40 MB."""


def nearest_neighbours(rows: Iterable[tuple[str, bytes]], min_cosine: float,
                       per_entry: int) -> dict[str, dict[str, float]]:
    """{id: {other id: cosine}} for every vector's `per_entry` closest others at or above `min_cosine` (an empty
    dict for a vector with none: it was compared; rows of another length than the first, from a half-finished
    re-embed, are left out)."""
    ids: list[str] = []
    data: list[bytes] = []
    for entry_id, blob in rows:
        if data and len(blob) != len(data[0]):
            continue
        ids.append(entry_id)
        data.append(bytes(blob))
    if len(ids) < 2:
        return {entry_id: {} for entry_id in ids}
    matrix = unit_rows(np.frombuffer(b"".join(data), dtype="<f4").reshape(len(ids), len(data[0]) //
                                                                          BYTES_PER_DIMENSION))
    found: dict[str, dict[str, float]] = {}
    for start in range(0, len(ids), BLOCK_ROWS):
        block = matrix[start:start + BLOCK_ROWS] @ matrix.T
        for offset, scores in enumerate(block):
            row = start + offset
            scores[row] = -1.0  # not its own neighbour
            take = min(per_entry, len(ids) - 1)
            best = np.argpartition(-scores, take - 1)[:take]
            found[ids[row]] = {ids[i]: float(scores[i]) for i in best if scores[i] >= min_cosine}
    return found
