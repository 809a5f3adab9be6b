"""Prominence and final-score formulas (spec 001 D3, design C5)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from operator import attrgetter
from typing import Mapping, Sequence

from memory_core.entries.records import Entry, EntryStats

CONFIDENCE_SCORE = {"high": 3 / 3, "medium": 2 / 3, "low": 1 / 3}
RECENCY_HALF_LIFE_DAYS = 30.0
RECALL_SATURATION = 10.0
_OBSERVATIONS = attrgetter("observation_count")


@dataclass(frozen=True)
class Weights:
    """Relative weight of each ranking signal."""

    vector: float = 0.5
    keyword: float = 0.2
    prominence: float = 0.3


def recency_decay(updated_at: datetime, now: datetime) -> float:
    """Hyperbolic decay 1 / (1 + days / 30); a future timestamp counts as today."""
    return decay_of_age((now - updated_at).total_seconds())


def decay_of_age(age_seconds: float) -> float:
    """`recency_decay` for an age in seconds (negative: in the future, counts as today)."""
    return 1.0 / (1.0 + max(age_seconds, 0.0) / (86400.0 * RECENCY_HALF_LIFE_DAYS))


def prominence(entry: Entry, max_observations: int, now: datetime) -> float:
    """0.3 observations + 0.2 confidence + 0.3 recency + 0.2 recall frequency, in [0, 1]."""
    observations = entry.observation_count / max(max_observations, 1)
    recall = min(entry.recall_count / RECALL_SATURATION, 1.0)
    return (
        0.3 * min(observations, 1.0)
        + 0.2 * CONFIDENCE_SCORE[entry.confidence]
        + 0.3 * recency_decay(entry.updated_at, now)
        + 0.2 * recall
    )


def effective_weights(weights: Weights, vector_active: bool, keyword_active: bool) -> Weights:
    """Zero the weights of inactive signals and redistribute them proportionally to the rest."""
    vector = weights.vector if vector_active else 0.0
    keyword = weights.keyword if keyword_active else 0.0
    total = vector + keyword + weights.prominence
    if total <= 0.0:
        return Weights(vector=0.0, keyword=0.0, prominence=1.0)
    return Weights(vector=vector / total, keyword=keyword / total, prominence=weights.prominence / total)


def final_scores(
    entries: Sequence[EntryStats],
    vector_scores: Mapping[str, float],
    keyword_scores: Mapping[str, float],
    weights: Weights,
    now: datetime,
) -> tuple[dict[str, float], Weights]:
    """Score every entry; a signal whose best score is 0 gives its weight to the others.

    Same formula as `prominence`, unrolled into one loop: this runs for every entry at each session start.
    """
    vector_top = max((v for v in vector_scores.values() if v > 0), default=0.0)
    keyword_top = max((v for v in keyword_scores.values() if v > 0), default=0.0)
    used = effective_weights(weights, vector_top > 0, keyword_top > 0)
    max_obs = max(max(map(_OBSERVATIONS, entries), default=1), 1)
    w_obs, w_conf, w_recent, w_recall = (used.prominence * w for w in (0.3, 0.2, 0.3, 0.2))
    per_observation = w_obs / max_obs  # counts never exceed max_obs, so no min(..., 1) is needed
    per_recall = w_recall / RECALL_SATURATION
    confidence = {level: w_conf * value for level, value in CONFIDENCE_SCORE.items()}
    w_vector, w_keyword = used.vector, used.keyword
    vector_top = vector_top or 1.0
    keyword_top = keyword_top or 1.0
    vector_get, keyword_get = vector_scores.get, keyword_scores.get
    now_ts = now.timestamp()
    half_life = 86400.0 * RECENCY_HALF_LIFE_DAYS
    scores: dict[str, float] = {}
    # EntryStats is a tuple: unpacking it is the cheapest way to read its fields in a loop this hot.
    for entry_id, _, observations, level, recalls, updated_ts, _ in entries:
        age = now_ts - updated_ts
        recency = w_recent / (1.0 + age / half_life) if age > 0.0 else w_recent  # decay_of_age, inlined
        v = vector_get(entry_id, 0.0)
        k = keyword_get(entry_id, 0.0)
        scores[entry_id] = (
            (w_vector * (v / vector_top) if v > 0 else 0.0)  # divide first: a tiny maximum must not overflow
            + (w_keyword * (k / keyword_top) if k > 0 else 0.0)
            + per_observation * observations
            + confidence[level]
            + recency
            + (per_recall * recalls if recalls < RECALL_SATURATION else w_recall)
        )
    return scores, used


def scores_with_prominence(prominences: Mapping[str, float], vector_scores: Mapping[str, float],
                           keyword_scores: Mapping[str, float], weights: Weights) -> tuple[dict[str, float], Weights]:
    """`final_scores` of the entries in `prominences` (each entry's prominence, computed before)."""
    vector_top = max(max(vector_scores.values(), default=0.0), 0.0)  # the best positive score, else 0
    keyword_top = max(max(keyword_scores.values(), default=0.0), 0.0)
    used = effective_weights(weights, vector_top > 0, keyword_top > 0)
    w_vector, w_keyword, w_prominence = used.vector, used.keyword, used.prominence
    vector_top, keyword_top = vector_top or 1.0, keyword_top or 1.0
    vector_get, keyword_get = vector_scores.get, keyword_scores.get
    scores = {}
    for entry_id, value in prominences.items():
        v, k = vector_get(entry_id, 0.0), keyword_get(entry_id, 0.0)
        scores[entry_id] = ((w_vector * (v / vector_top) if v > 0 else 0.0)  # divide first, as final_scores
                            + (w_keyword * (k / keyword_top) if k > 0 else 0.0) + w_prominence * value)
    return scores, used
