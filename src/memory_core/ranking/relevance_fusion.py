"""The `relevance` ranking (ADR 18): min-max normalised signals per query passage and for the whole context
query, a whole-query keyword signal trusted as far as the vector signal agrees with its best hits, the
code-reference signal, and prominence as a small prior."""

from __future__ import annotations

from dataclasses import dataclass
from operator import add
from datetime import datetime
from typing import Mapping, Optional, Sequence

from memory_core.entries.records import EntryStats
from memory_core.ranking.scoring import Weights, final_scores

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
    """Weight of the code-reference signal (how closely an entry's cited files match the changed files)."""
    prominence: float = 0.05
    """Weight of the prominence prior (observations, confidence, recency and recalls of an entry)."""
    agreement_hits: int = 5
    """How many of the keyword signal's best hits the vector signal is asked about."""
    agreement_power: float = 2.0
    """Power the agreement is raised to: above 1, keywords count little unless the vectors clearly back them."""


@dataclass(frozen=True)
class PassageSignals:
    """One query passage's vector and keyword scores (either may be empty: that signal did not run for it)."""

    vector: Mapping[str, float]
    keyword: Mapping[str, float]


def min_max(raw: Mapping[str, float], ids: Sequence[str]) -> dict[str, float]:
    """Scale the scores of `ids` to [0, 1] (an id without a score counts as the lowest); all equal: all 0."""
    return dict(zip(ids, _scaled(raw, ids)))


def _scaled(raw: Mapping[str, float], ids: Sequence[str]) -> list[float]:
    """`min_max` as a list in the order of `ids` (a score of 0 is assumed for ids without one)."""
    if not raw:
        return [0.0] * len(ids)
    get = raw.get
    values = [get(i, 0.0) for i in ids]
    low, high = min(values, default=0.0), max(values, default=0.0)
    if high <= low:
        return [0.0] * len(ids)
    scale = 1.0 / (high - low)
    return [(v - low) * scale for v in values]


def _sparse_scaled(raw: Mapping[str, float], position: Mapping[str, int]) -> Optional[list[tuple[int, float]]]:
    """`min_max` of a signal that scores few entries, as (position, scaled score) for the scored ones only,
    when every other entry scales to 0 (else None: the caller scales densely)."""
    present = [(position[i], v) for i, v in raw.items() if i in position]
    if not present:
        return []
    values = [v for _, v in present]
    low, high = min(values), max(values)
    if len(present) < len(position):
        low, high = min(low, 0.0), max(high, 0.0)
    if low < 0.0:
        return None
    if high <= low:
        return []
    scale = 1.0 / (high - low)
    return [(n, (v - low) * scale) for n, v in present]


def agreement(vector: Mapping[str, float], keyword: Mapping[str, float], hits: int, power: float) -> float:
    """How far the vector signal backs the keyword signal: the mean normalised vector score of the keyword's
    best hits, raised to `power` (1 without a vector signal, so keywords then count in full)."""
    if not any(vector.values()):
        return 1.0
    best = sorted((k for k, v in keyword.items() if v > 0.0), key=lambda k: -keyword[k])[:max(hits, 1)]
    if not best:
        return 0.0
    return (sum(vector[k] for k in best) / len(best)) ** power


def _scaled_hits(raw: Mapping[str, float], ids: Sequence[str], position: Mapping[str, int]) -> list[tuple[int, float]]:
    """The nonzero min-max scaled scores as (position, value): sparse when the signal scored few entries."""
    hits = _sparse_scaled(raw, position)
    if hits is None:
        return [(n, v) for n, v in enumerate(_scaled(raw, ids)) if v > 0.0]
    return [(n, v) for n, v in hits if v > 0.0]


def passage_scores(ids: Sequence[str], passages: Sequence[PassageSignals], tuning: RelevanceTuning,
                   position: Optional[Mapping[str, int]] = None) -> list[float]:
    """Per entry: `passage_best` x its best passage + the rest x its mean passage, where a passage scores
    its normalised vector similarity + `passage_keyword` x its normalised keyword score."""
    if not passages:
        return [0.0] * len(ids)
    position = position if position is not None else {i: n for n, i in enumerate(ids)}
    weight = tuning.passage_keyword
    best: list[float] = []
    total: list[float] = []
    for passage in passages:
        row = _scaled(passage.vector, ids)
        for n, k in _scaled_hits(passage.keyword, ids, position):
            row[n] += weight * k
        if not best:
            best, total = row, list(row)
        else:
            best = list(map(max, best, row))
            total = list(map(add, total, row))
    share = tuning.passage_best
    rest = (1.0 - share) / len(passages)
    return [share * b + rest * t for b, t in zip(best, total)]


def relevance_scores(stats: Sequence[EntryStats], vector_scores: Mapping[str, float],
                     keyword_scores: Mapping[str, float], reference_scores: Mapping[str, float],
                     now: datetime, tuning: RelevanceTuning = RelevanceTuning(),
                     passages: Sequence[PassageSignals] = ()) -> dict[str, float]:
    """Score every entry: passages + `whole` x (vector + keyword x agreement) + references + prominence prior.
    Without passages the whole query is the only passage."""
    ids = [s.id for s in stats]
    position = {i: n for n, i in enumerate(ids)}
    vector = _scaled(vector_scores, ids)
    keyword = _scaled_hits(keyword_scores, ids, position)
    trust = tuning.keyword * _agreement(vector, keyword, tuning.agreement_hits, tuning.agreement_power)
    prior, _ = final_scores(stats, {}, {}, PROMINENCE_ONLY, now)
    per_passage = passage_scores(ids, passages or [PassageSignals(vector_scores, keyword_scores)], tuning, position)
    w_whole, w_prior = tuning.whole, tuning.prominence
    totals = [p + w_whole * v + w_prior * r for p, v, r in zip(per_passage, vector, map(prior.__getitem__, ids))]
    for n, k in keyword:
        totals[n] += tuning.whole * trust * k
    for entry_id, match in reference_scores.items():
        if entry_id in position:
            totals[position[entry_id]] += tuning.references * match
    return dict(zip(ids, totals))


def _agreement(vector: list[float], keyword: list[tuple[int, float]], hits: int, power: float) -> float:
    """`agreement` over the scaled lists."""
    if not any(vector):
        return 1.0
    best = sorted(keyword, key=lambda hit: (-hit[1], hit[0]))[:max(hits, 1)]
    if not best:
        return 0.0
    return (sum(vector[n] for n, _ in best) / len(best)) ** power
