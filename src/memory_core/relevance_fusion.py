"""The `relevance` ranking (ADR 18): min-max normalised signals per query passage and for the whole context
query, a whole-query keyword signal trusted as far as the vector signal agrees with its best hits, the
code-reference signal, and prominence as a small prior."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Mapping, Sequence

from memory_core.records import EntryStats
from memory_core.scoring import Weights, final_scores

PROMINENCE_ONLY = Weights(vector=0.0, keyword=0.0, prominence=1.0)


@dataclass(frozen=True)
class RelevanceTuning:
    """Weights of the `relevance` ranking (chosen by leave-one-set-out cross-validation on the relevance suite)."""

    passage_keyword: float = 0.75
    """Keyword weight within a passage (the passage's vector signal weighs 1)."""
    passage_best: float = 0.3
    """Share of an entry's best passage score; the rest is its mean over the passages."""
    whole: float = 0.5
    """Weight of the whole context query's signals beside the passages'."""
    keyword: float = 1.0
    """Whole-query keyword weight (times the agreement; the whole query's vector signal weighs 1)."""
    references: float = 0.3
    prominence: float = 0.05
    agreement_hits: int = 5
    """How many of the keyword signal's best hits the vector signal is asked about."""
    agreement_power: float = 2.0


@dataclass(frozen=True)
class PassageSignals:
    """One query passage's vector and keyword scores (either may be empty: that signal did not run for it)."""

    vector: Mapping[str, float]
    keyword: Mapping[str, float]


def min_max(raw: Mapping[str, float], ids: Sequence[str]) -> dict[str, float]:
    """Scale the scores of `ids` to [0, 1] (an id without a score counts as the lowest); all equal: all 0."""
    return dict(zip(ids, _scaled(raw, ids)))


def _scaled(raw: Mapping[str, float], ids: Sequence[str]) -> list[float]:
    if not raw:
        return [0.0] * len(ids)
    get = raw.get
    values = [get(i, 0.0) for i in ids]
    low, high = min(values, default=0.0), max(values, default=0.0)
    if high <= low:
        return [0.0] * len(ids)
    span = high - low
    return [(v - low) / span for v in values]


def agreement(vector: Mapping[str, float], keyword: Mapping[str, float], hits: int, power: float) -> float:
    """How far the vector signal backs the keyword signal: the mean normalised vector score of the keyword's
    best hits, raised to `power` (1 without a vector signal, so keywords then count in full)."""
    if not any(vector.values()):
        return 1.0
    best = sorted((k for k, v in keyword.items() if v > 0.0), key=lambda k: -keyword[k])[:max(hits, 1)]
    if not best:
        return 0.0
    return (sum(vector[k] for k in best) / len(best)) ** power


def passage_scores(ids: Sequence[str], passages: Sequence[PassageSignals], tuning: RelevanceTuning) -> list[float]:
    """Per entry: `passage_best` x its best passage + the rest x its mean passage, where a passage scores
    its normalised vector similarity + `passage_keyword` x its normalised keyword score."""
    best: list[float] = []
    total: list[float] = []
    for passage in passages:
        vector, keyword = _scaled(passage.vector, ids), _scaled(passage.keyword, ids)
        row = [v + tuning.passage_keyword * k for v, k in zip(vector, keyword)]
        if not best:
            best, total = row, list(row)
            continue
        best = [max(b, r) for b, r in zip(best, row)]
        total = [t + r for t, r in zip(total, row)]
    if not best:
        return [0.0] * len(ids)
    share, count = tuning.passage_best, len(passages)
    return [share * b + (1.0 - share) * t / count for b, t in zip(best, total)]


def relevance_scores(stats: Sequence[EntryStats], vector_scores: Mapping[str, float],
                     keyword_scores: Mapping[str, float], reference_scores: Mapping[str, float],
                     now: datetime, tuning: RelevanceTuning = RelevanceTuning(),
                     passages: Sequence[PassageSignals] = ()) -> dict[str, float]:
    """Score every entry: passages + `whole` x (vector + keyword x agreement) + references + prominence prior.
    Without passages the whole query is the only passage."""
    ids = [s.id for s in stats]
    vector = min_max(vector_scores, ids)
    keyword = min_max(keyword_scores, ids)
    trust = tuning.keyword * agreement(vector, keyword, tuning.agreement_hits, tuning.agreement_power)
    prior, _ = final_scores(stats, {}, {}, PROMINENCE_ONLY, now)
    per_passage = passage_scores(ids, passages or [PassageSignals(vector_scores, keyword_scores)], tuning)
    w_whole, w_ref, w_prior = tuning.whole, tuning.references, tuning.prominence
    return {i: p + w_whole * (vector[i] + trust * keyword[i]) + w_ref * reference_scores.get(i, 0.0)
            + w_prior * prior[i] for i, p in zip(ids, per_passage)}
