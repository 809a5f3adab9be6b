"""Absolute relevance: how likely an entry answers a query, on a fixed 0-1 scale, from raw signals (issue 23).

The spec's ranking divides every signal by its maximum, so it orders the entries of one query but cannot say
"nothing here is relevant": a nonsense query's best entry scores as high as a real answer. This logistic model reads
the raw signals instead (cosine of the whole query, the best cosine of one of its clauses, FTS5's BM25) and was
fitted and cross-validated on the relevance suite's `prompts` set over the real knowledge bank
(benchmarks/relevance/floor*.py; coefficients and out-of-sample shares in benchmarks/results/relevance.json,
`calibration.prompts.out_of_sample`). ADR 25 records the choice. A keyword index on another scale (PostgreSQL's
ts_rank_cd), or a store too small for BM25's word rarity, gets a twin model that reads the keyword score as
matched or not (`read_scale`, `relevance_model`); each model has its own floors.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

COSINE, PASSAGE_COSINE, BM25 = "cosine", "passage_cosine", "bm25"
KEYWORD_MATCH = "keyword_match"
"""1.0 when the keyword index matched the entry at all: what a keyword score says when its scale is not BM25's."""
BM25_SCALE, TS_RANK_CD_SCALE = "bm25", "ts_rank_cd"
"""The scales a KeywordIndex may return (its `keyword_scale`): FTS5's BM25, or PostgreSQL's ts_rank_cd, which
knows no word rarity and runs on another scale, so a weight fitted on BM25 means nothing for it."""
BM25_FROM_ENTRIES = 20
"""FTS5's idf is log((N - n + 0.5) / (n + 0.5)), floored near 0: in a store of a few entries a word most of them
hold scores about 0 however well it matches, so below this many entries BM25 is read as matched or not too."""


@dataclass(frozen=True)
class RelevanceModel:
    """A logistic relevance over named raw signals, with the floors its surfaces use."""

    name: str
    weights: Mapping[str, float]
    bias: float
    hook_floor: float
    """What the prompt hook injects: chosen so that at most 1 in 5 unanswerable prompts gets anything."""
    search_floor: float
    """What `search` calls a good match: lower, so an explicit query keeps its recall."""
    order_by_relevance: bool
    """Whether the hook takes its candidates most relevant first (else in the ranking's order)."""

    def relevance(self, signals: Mapping[str, float]) -> float:
        """The probability-like relevance (0-1) of one entry from its raw signals (a missing signal counts 0)."""
        z = self.bias + sum(w * float(signals.get(name, 0.0)) for name, w in self.weights.items())
        if z >= 0:
            return 1.0 / (1.0 + math.exp(-z))
        e = math.exp(z)  # the same value, without overflow for very negative z
        return e / (1.0 + e)


# The search floors: per model the highest under which no earlier relevance set loses more than 0.01 recall@10
# of what `search` shows (of the results a signal found: prominence alone is never a good match), measured
# through the product's search on every set (benchmarks/results/relevance.json, `search_floor.models`;
# `python -m benchmarks search-floor`). With the model 28 of 30 nonsense queries get "no good match" on the real
# bank; keywords only, the 13 keyboard-mash and random-word ones do, off-topic sentences mostly share a word.
WITH_MODEL = RelevanceModel(
    name="meaning + keywords", weights={COSINE: 5.8781, PASSAGE_COSINE: 2.9131, BM25: 0.2255}, bias=-6.7715,
    hook_floor=0.19, search_floor=0.012, order_by_relevance=True)
"""When the query could be compared with stored vectors (the local model or a cloud provider)."""

KEYWORDS_ONLY = RelevanceModel(
    name="keywords", weights={BM25: 0.3288}, bias=-5.1648, hook_floor=0.09, search_floor=0.012,
    order_by_relevance=False)
"""When it could not (no provider, no vectors yet, a deadline too short for the model)."""

MEANING_ONLY = RelevanceModel(
    name="meaning (keyword scores not BM25)", weights={COSINE: 5.8781, PASSAGE_COSINE: 2.9131}, bias=-6.7715,
    hook_floor=0.19, search_floor=0.012, order_by_relevance=True)
"""With vectors, over a keyword index that is not BM25 (PostgreSQL): WITH_MODEL without its BM25 term, which
only lowers a relevance (so the hook floor stays WITH_MODEL's, conservatively), with its own search floor
(measured on PostgreSQL)."""

KEYWORD_MATCHED = RelevanceModel(
    name="keywords matched (not BM25)", weights={KEYWORD_MATCH: 3.3384}, bias=-5.1648,
    hook_floor=1.0, search_floor=0.138, order_by_relevance=False)
"""Without vectors, over a keyword index that is not BM25: whether a keyword matched is all it can say. Unmatched
keeps KEYWORDS_ONLY's relevance; matched gets the share of relevant results among the matched ones on the
`prompts` set on PostgreSQL (0.139). `search` keeps what matched; the prompt hook (floor 1.0, never reached)
injects nothing."""


def read_scale(keyword_scale: str, entries: int) -> str:
    """The scale the relevance reads a keyword index's scores on: BM25 only where the store is large enough for
    its word rarity to mean something (BM25_FROM_ENTRIES), else matched or not (TS_RANK_CD_SCALE's reading)."""
    return keyword_scale if keyword_scale != BM25_SCALE or entries >= BM25_FROM_ENTRIES else TS_RANK_CD_SCALE


def relevance_model(vector_ran: bool, keyword_scale: str = BM25_SCALE) -> RelevanceModel:
    """The model for a query whose vector signal ran (or did not), over keyword scores read on `keyword_scale`."""
    if keyword_scale == BM25_SCALE:
        return WITH_MODEL if vector_ran else KEYWORDS_ONLY
    return MEANING_ONLY if vector_ran else KEYWORD_MATCHED


def keyword_signal(score: float, keyword_scale: str) -> dict[str, float]:
    """A keyword index's score as the signal the scale's model reads: BM25 as it is, any other as matched or not."""
    if keyword_scale == BM25_SCALE:
        return {BM25: score}
    return {KEYWORD_MATCH: 1.0 if score > 0 else 0.0}
