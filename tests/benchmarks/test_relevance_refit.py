"""The pooled refit of the relevance floor (issue 23) on synthetic prompts: the nested selection finds the feature
that separates, and the held-out shares come per file, pooled and for the near-topic unanswerable prompts."""

from __future__ import annotations

import numpy as np

from benchmarks.relevance.floor_features import Candidate, QueryCandidates
from benchmarks.relevance.pooled import PooledPrompts
from benchmarks.relevance.refit import cross_validated, leave_file_out, select, select_by_inner_cv


def _pooled(seed: int = 3) -> PooledPrompts:
    """Two files; an answerable prompt's grade-2 entry has a high `signal`, everything else a low one; `noise`
    says nothing."""
    rng = np.random.default_rng(seed)
    queries, source = [], {}
    for name in ("first", "second"):
        for n in range(24):
            answerable = n % 3 != 0
            key = f"{name}:{'a' if answerable else 'u'}{n:02d}"
            found = QueryCandidates(key, {f"{key}-0": 2} if answerable else {})
            found.paths["full"] = [Candidate(f"{key}-{i}", 2 if answerable and i == 0 else 0,
                                             {"signal": 0.8 if answerable and i == 0 else rng.uniform(0.0, 0.3),
                                              "noise": rng.uniform(0.0, 1.0)}) for i in range(10)]
            queries.append(found)
            source[key] = name
    return PooledPrompts(queries, source)


def test_both_selections_choose_the_separating_feature():
    pooled = _pooled()
    for choose in (select, select_by_inner_cv):
        choice = choose(pooled.queries, "full", [("noise",), ("signal",)])
        assert choice["features"] == ["signal"] and choice["training"]["silent"] == 1.0


def test_held_out_shares_come_per_file_pooled_and_for_near_topic_prompts():
    pooled = _pooled()
    found = cross_validated(pooled, "full", [("noise",), ("signal",)], select_by_inner_cv)
    held = found["held_out"]
    assert set(held) == {"pooled", "first", "second", "near_topic_unanswerable"}
    assert held["pooled"]["grade2"] == held["pooled"]["silent"] == 1.0 and held["pooled"]["relevant"] == 1.0
    assert held["near_topic_unanswerable"]["prompts"] == 0  # these files name none
    assert len(found["folds"]) == 5 and all(f["features"] == ["signal"] for f in found["folds"])
    left = leave_file_out(pooled, "full", [("signal",)])
    assert set(left) == {"first", "second"} and left["first"]["grade2"] == 1.0
