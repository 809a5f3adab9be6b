"""The review's near-duplicate finder (ADR 26): pairs of live entries that say the same thing, scored as a write
scores a draft against its neighbours."""

from __future__ import annotations

from typing import Any, Callable, Sequence


def near_duplicate_pairs(store) -> Callable[[Sequence[Any]], list[tuple[str, str, float]]]:
    """(entries) -> [(id_a, id_b, score)], best first: each entry's nearest stored vectors, judged by
    `memory_core.ranking.near_duplicates`. Entries without a vector are in no pair: the keyword-only rule judges
    writes, where the keyword search names a few candidates; over every pair of a large bank it is quadratic."""
    def pairs(entries: Sequence[Any]) -> list[tuple[str, str, float]]:
        from memory_adapters.vectors.neighbours import nearest_neighbours
        from memory_core.ranking.near_duplicates import CANDIDATES, MIN_CANDIDATE_COSINE, near_duplicate_pairs as judged

        vectors = getattr(store, "vectors", None)
        if vectors is None:
            return []
        return judged(entries, nearest_neighbours(vectors(), MIN_CANDIDATE_COSINE, CANDIDATES))
    return pairs
