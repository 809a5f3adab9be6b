"""Ranking metrics over graded judgements (grade 1 related, 2 directly useful)."""

from __future__ import annotations

import math
from typing import Mapping, Sequence

RECALL_AT = 20
NDCG_AT = 10


def recall_at(ranked: Sequence[str], relevant: Mapping[str, int], k: int = RECALL_AT) -> float:
    """Share of the relevant entries (any grade) among the first k."""
    if not relevant:
        return 0.0
    return sum(1 for key in ranked[:k] if relevant.get(key, 0) > 0) / len(relevant)


def ndcg_at(ranked: Sequence[str], relevant: Mapping[str, int], k: int = NDCG_AT) -> float:
    """Normalised discounted cumulative gain at k, gain 2^grade - 1."""
    gains = [2 ** relevant.get(key, 0) - 1 for key in ranked[:k]]
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
    ideal = sorted((2 ** g - 1 for g in relevant.values()), reverse=True)[:k]
    best = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / best if best else 0.0


def reciprocal_rank(ranked: Sequence[str], relevant: Mapping[str, int]) -> float:
    """1 / the position of the first relevant entry (0 when none is ranked)."""
    for position, key in enumerate(ranked, start=1):
        if relevant.get(key, 0) > 0:
            return 1.0 / position
    return 0.0


def score_ranking(ranked: Sequence[str], relevant: Mapping[str, int]) -> dict[str, float]:
    """recall@20, nDCG@10 and reciprocal rank of one ranking."""
    return {"recall@20": recall_at(ranked, relevant), "ndcg@10": ndcg_at(ranked, relevant),
            "mrr": reciprocal_rank(ranked, relevant)}
