"""Absolute relevance: how likely an entry answers a query, on a fixed 0-1 scale, from raw signals (issue 23).

The spec's ranking divides every signal by its maximum, so it orders the entries of one query but cannot say
"nothing here is relevant": a nonsense query's best entry scores as high as a real answer. This logistic model reads
the raw signals instead (cosine of the whole query, the best cosine of one of its clauses, FTS5's BM25) and was
fitted and cross-validated on the relevance suite's `prompts` set over the real knowledge bank
(benchmarks/relevance/floor*.py; coefficients and out-of-sample shares in benchmarks/results/relevance.json,
`calibration.prompts.out_of_sample`). ADR 25 records the choice.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

COSINE, PASSAGE_COSINE, BM25 = "cosine", "passage_cosine", "bm25"


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


WITH_MODEL = RelevanceModel(
    name="meaning + keywords", weights={COSINE: 5.8781, PASSAGE_COSINE: 2.9131, BM25: 0.2255}, bias=-6.7715,
    hook_floor=0.19, search_floor=0.19, order_by_relevance=True)
"""When the query could be compared with stored vectors (the local model or a cloud provider)."""

KEYWORDS_ONLY = RelevanceModel(
    name="keywords", weights={BM25: 0.3288}, bias=-5.1648, hook_floor=0.09, search_floor=0.09,
    order_by_relevance=False)
"""When it could not (no provider, no vectors yet, a deadline too short for the model)."""


def relevance_model(vector_ran: bool) -> RelevanceModel:
    """The model for a query whose vector signal ran (or did not)."""
    return WITH_MODEL if vector_ran else KEYWORDS_ONLY
