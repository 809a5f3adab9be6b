"""The `relevance` ranking (ADR 18): min-max normalised signals, a keyword signal trusted as far as the
vector signal agrees with its best hits, the code-reference signal, and prominence as a small prior."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Mapping, Sequence

from memory_core.records import EntryStats
from memory_core.scoring import Weights, final_scores

PROMINENCE_ONLY = Weights(vector=0.0, keyword=0.0, prominence=1.0)


@dataclass(frozen=True)
class RelevanceTuning:
    """Weights of the `relevance` ranking; the vector signal weighs 1."""

    keyword: float = 1.0
    references: float = 0.3
    prominence: float = 0.05
    agreement_hits: int = 5
    """How many of the keyword signal's best hits the vector signal is asked about."""
    agreement_power: float = 2.0


def min_max(raw: Mapping[str, float], ids: Sequence[str]) -> dict[str, float]:
    """Scale the scores of `ids` to [0, 1] (an id without a score counts as the lowest); all equal: all 0."""
    values = [raw.get(i, 0.0) for i in ids]
    low, high = min(values, default=0.0), max(values, default=0.0)
    if high <= low:
        return {i: 0.0 for i in ids}
    span = high - low
    return {i: (v - low) / span for i, v in zip(ids, values)}


def agreement(vector: Mapping[str, float], keyword: Mapping[str, float], hits: int, power: float) -> float:
    """How far the vector signal backs the keyword signal: the mean normalised vector score of the keyword's
    best hits, raised to `power` (1 without a vector signal, so keywords then count in full)."""
    if not any(vector.values()):
        return 1.0
    best = sorted((k for k, v in keyword.items() if v > 0.0), key=lambda k: -keyword[k])[:max(hits, 1)]
    if not best:
        return 0.0
    return (sum(vector[k] for k in best) / len(best)) ** power


def relevance_scores(stats: Sequence[EntryStats], vector_scores: Mapping[str, float],
                     keyword_scores: Mapping[str, float], reference_scores: Mapping[str, float],
                     now: datetime, tuning: RelevanceTuning = RelevanceTuning()) -> dict[str, float]:
    """Score every entry: vector + keyword x agreement + references + prominence prior (weights in `tuning`)."""
    ids = [s.id for s in stats]
    vector = min_max(vector_scores, ids) if vector_scores else {i: 0.0 for i in ids}
    keyword = min_max(keyword_scores, ids) if keyword_scores else {i: 0.0 for i in ids}
    trust = tuning.keyword * agreement(vector, keyword, tuning.agreement_hits, tuning.agreement_power)
    prior, _ = final_scores(stats, {}, {}, PROMINENCE_ONLY, now)
    w_ref, w_prior = tuning.references, tuning.prominence
    return {i: vector[i] + trust * keyword[i] + w_ref * reference_scores.get(i, 0.0) + w_prior * prior[i]
            for i in ids}
