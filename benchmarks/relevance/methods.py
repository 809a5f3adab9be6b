"""The ranking methods the suite compares: single signals, the spec hybrid, the `relevance` ranking (all the
product's own code), and the variants tried on the way (each a small change of one of those)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Callable

import numpy as np

from benchmarks.relevance.signals import Signals
from memory_core.ranking.code_references import reference_scores
from memory_core.ranking.relevance_fusion import RelevanceTuning, min_max, relevance_scores
from memory_core.ranking.scoring import Weights, final_scores

Method = Callable[[Signals, "Scorer"], dict[str, float]]
RRF_K = 60
PRF_HITS, PRF_SHARE = 5, 0.3


class Scorer:
    """The product's RetrieveAndRank instances (spec and relevance) and what the variants need."""

    def __init__(self, spec, relevance, cited: dict[str, list[str]], matrix_of, now: datetime) -> None:
        self.spec, self.relevance, self.cited, self.matrix_of, self.now = spec, relevance, cited, matrix_of, now

    def spec_weights(self, s: Signals, weights: Weights) -> dict[str, float]:
        """The spec formula with other weights (single signals)."""
        return final_scores(s.stats, s.vector, s.keyword, weights, self.now)[0]

    def references(self, s: Signals) -> dict[str, float]:
        """The code-reference signal."""
        return reference_scores(self.cited, s.changed_files)

    def tuned(self, s: Signals, tuning: RelevanceTuning, keyword=None, passages=None) -> dict[str, float]:
        """The relevance fusion with other tuning or other signals."""
        return relevance_scores(s.stats, s.vector, s.keyword if keyword is None else keyword, self.references(s),
                                self.now, tuning, s.passages if passages is None else passages)


def _rrf(s: Signals, sc: Scorer) -> dict[str, float]:
    scores = {i: 0.0 for i in s.ids}
    for signal in (s.vector, s.keyword, sc.references(s)):
        ranked = sorted((i for i in s.ids if signal.get(i, 0.0) > 0), key=lambda i: -signal[i])
        for position, entry_id in enumerate(ranked):
            scores[entry_id] += 1.0 / (RRF_K + position + 1)
    return scores


def _spec_min_max(s: Signals, sc: Scorer) -> dict[str, float]:
    vector, keyword = min_max(s.vector, s.ids), min_max(s.keyword, s.ids)
    prior = final_scores(s.stats, {}, {}, Weights(0, 0, 1), sc.now)[0]
    return {i: 0.5 * vector[i] + 0.2 * keyword[i] + 0.3 * prior[i] for i in s.ids}


def _prf(s: Signals, sc: Scorer) -> dict[str, float]:
    first = sc.relevance.score(s.stats, s.vector, s.keyword, s.changed_files, s.passages)[0]
    top = sorted(s.ids, key=lambda i: -first[i])[:PRF_HITS]
    matrix = sc.matrix_of(s.ids)
    position = {i: n for n, i in enumerate(s.ids)}
    centroid = matrix[[position[i] for i in top]].mean(axis=0)
    centroid /= float(np.linalg.norm(centroid)) or 1.0
    feedback = min_max(dict(zip(s.ids, (matrix @ centroid).tolist())), s.ids)
    base = min_max(first, s.ids)
    return {i: (1 - PRF_SHARE) * base[i] + PRF_SHARE * feedback[i] for i in s.ids}


DEFAULT_TUNING = RelevanceTuning()
METHODS: dict[str, Method] = {
    "keyword only": lambda s, sc: sc.spec_weights(s, Weights(vector=0.0, keyword=1.0, prominence=0.0)),
    "vector only": lambda s, sc: sc.spec_weights(s, Weights(vector=1.0, keyword=0.0, prominence=0.0)),
    "references only": lambda s, sc: sc.references(s),
    "spec hybrid": lambda s, sc: sc.spec.score(s.stats, s.vector, s.keyword, s.changed_files)[0],
    "relevance": lambda s, sc: sc.relevance.score(s.stats, s.vector, s.keyword, s.changed_files, s.passages)[0],
    # variants tried on the way
    "spec weights, min-max": _spec_min_max,
    "relevance, whole query only (no passages)": lambda s, sc: sc.tuned(s, DEFAULT_TUNING, passages=()),
    "relevance, best passage only": lambda s, sc: sc.tuned(s, replace(DEFAULT_TUNING, passage_best=1.0)),
    "relevance, passages only": lambda s, sc: sc.tuned(s, replace(DEFAULT_TUNING, whole=0.0)),
    "relevance, no agreement": lambda s, sc: sc.tuned(s, replace(DEFAULT_TUNING, agreement_power=0.0)),
    "relevance, no references": lambda s, sc: sc.tuned(s, replace(DEFAULT_TUNING, references=0.0)),
    "relevance, no prior": lambda s, sc: sc.tuned(s, replace(DEFAULT_TUNING, prominence=0.0)),
    "relevance, keyword weights 0.5": lambda s, sc: sc.tuned(s, replace(DEFAULT_TUNING, keyword=0.5,
                                                                        passage_keyword=0.5)),
    "relevance, feature-text keywords": lambda s, sc: sc.tuned(s, DEFAULT_TUNING, keyword=s.keyword_feature),
    "reciprocal-rank fusion": _rrf,
    "relevance + vector feedback": _prf,
}
SINGLE_SIGNALS = ("keyword only", "vector only")
PRODUCT = ("spec hybrid", "relevance")
