"""Ranking formulas of spec 001 D3 and design C5."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_core.entries.models import Entry, EntryDraft
from memory_core.entries.records import EntryStats
from memory_core.ranking.scoring import Weights, effective_weights, final_scores, prominence, recency_decay
from tests.fakes import T0


def make_entry(desc: str, *, obs: int = 1, confidence: str = "medium", age_days: float = 0.0,
               recalls: int = 0, category: str = "patterns") -> Entry:
    draft = EntryDraft(name=desc[:20], description=desc, category=category, confidence=confidence,
                       observation_count=obs)
    entry = Entry.from_draft(draft, T0 - timedelta(days=age_days))
    return entry.with_changes(recall_count=recalls)


def ranking_fields(entries: list[Entry]) -> list[EntryStats]:
    return [EntryStats.of(e) for e in entries]


@pytest.mark.parametrize("days, expected, tol", [(0, 1.0, 1e-9), (1, 0.97, 0.005), (30, 0.5, 1e-9), (90, 0.25, 1e-9)])
def test_recency_decay_has_a_30_day_half_life(days, expected, tol):
    assert recency_decay(T0 - timedelta(days=days), T0) == pytest.approx(expected, abs=tol)


def test_recency_decay_treats_future_timestamps_as_today():
    assert recency_decay(T0 + timedelta(days=3), T0) == pytest.approx(1.0)


def test_prominence_worked_example():
    # obs 2 of max 4 -> 0.5; high -> 1.0; 30 days -> 0.5; 5 recalls -> 0.5
    entry = make_entry("worked example", obs=2, confidence="high", age_days=30, recalls=5)
    expected = 0.3 * 0.5 + 0.2 * 1.0 + 0.3 * 0.5 + 0.2 * 0.5
    assert prominence(entry, max_observations=4, now=T0) == pytest.approx(expected)


def test_prominence_confidence_levels_and_recall_cap():
    low = make_entry("a", confidence="low", recalls=25)
    medium = make_entry("a", confidence="medium", recalls=25)
    # obs 1/1 -> 1, recency 1, recall capped at 1.0
    assert prominence(low, 1, T0) == pytest.approx(0.3 + 0.2 * (1 / 3) + 0.3 + 0.2)
    assert prominence(medium, 1, T0) == pytest.approx(0.3 + 0.2 * (2 / 3) + 0.3 + 0.2)


def test_effective_weights_redistribute_proportionally():
    w = effective_weights(Weights(), vector_active=False, keyword_active=True)
    assert (w.vector, w.keyword, w.prominence) == pytest.approx((0.0, 0.2 / 0.5, 0.3 / 0.5))
    w = effective_weights(Weights(), vector_active=True, keyword_active=False)
    assert (w.vector, w.keyword, w.prominence) == pytest.approx((0.5 / 0.8, 0.0, 0.3 / 0.8))
    w = effective_weights(Weights(), vector_active=False, keyword_active=False)
    assert (w.vector, w.keyword, w.prominence) == pytest.approx((0.0, 0.0, 1.0))
    w = effective_weights(Weights(), vector_active=True, keyword_active=True)
    assert (w.vector, w.keyword, w.prominence) == pytest.approx((0.5, 0.2, 0.3))


def test_final_scores_without_matches_use_prominence_only():
    entries = [make_entry("one", obs=3), make_entry("two", obs=1)]
    scores, used = final_scores(ranking_fields(entries), {}, {}, Weights(), T0)
    assert used.prominence == pytest.approx(1.0)
    assert scores[entries[0].id] == pytest.approx(prominence(entries[0], 3, T0))
    assert scores[entries[0].id] > scores[entries[1].id]


ENTRY_SPECS = st.lists(
    st.tuples(st.integers(1, 20), st.sampled_from(["high", "medium", "low"]), st.floats(0, 400),
              st.integers(0, 30), st.floats(-1, 1), st.one_of(st.none(), st.floats(0, 50))),
    min_size=1, max_size=12)
WEIGHTS = st.builds(Weights, st.floats(0, 1), st.floats(0, 1), st.floats(0, 1))


@settings(max_examples=60, deadline=None)
@given(specs=ENTRY_SPECS, weights=WEIGHTS)
def test_every_final_score_is_in_unit_interval(specs, weights):
    entries, vec, kw = [], {}, {}
    for i, (obs, conf, age, recalls, cos, bm25) in enumerate(specs):
        e = make_entry(f"entry number {i}", obs=obs, confidence=conf, age_days=age, recalls=recalls)
        entries.append(e)
        vec[e.id] = cos
        if bm25 is not None:
            kw[e.id] = bm25
    scores, used = final_scores(ranking_fields(entries), vec, kw, weights, T0)
    assert used.vector + used.keyword + used.prominence == pytest.approx(1.0)
    assert all(-1e-9 <= s <= 1.0 + 1e-9 for s in scores.values())


@settings(max_examples=60, deadline=None)
@given(obs=st.integers(1, 9), conf=st.sampled_from(["high", "medium", "low"]), age=st.floats(0, 365),
       recalls=st.integers(0, 20), cos=st.floats(-1, 1), bm25=st.floats(0.01, 30))
def test_keyword_match_outranks_identical_non_match(obs, conf, age, recalls, cos, bm25):
    hit = make_entry("alpha entry", obs=obs, confidence=conf, age_days=age, recalls=recalls)
    miss = make_entry("beta entry", obs=obs, confidence=conf, age_days=age, recalls=recalls)
    scores, _ = final_scores(ranking_fields([hit, miss]), {hit.id: cos, miss.id: cos}, {hit.id: bm25}, Weights(), T0)
    assert scores[hit.id] > scores[miss.id]
