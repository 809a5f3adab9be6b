"""A search reuses the prominences it computed, yet always ranks as the spec formula over the current counters."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_core.entries.models import EntryDraft, EntryStats
from memory_core.ranking.relevance_fusion import PROMINENCE_ONLY
from memory_core.ranking.scoring import Weights, final_scores, scores_with_prominence
from memory_core.usecases.retrieve import RetrieveAndRank
from tests.fakes import FakeClock, InMemoryEntryStore, T0

LEVELS = ("low", "medium", "high")


@st.composite
def entry_stats(draw):
    count = draw(st.integers(min_value=1, max_value=12))
    return [EntryStats(f"e{i}", "patterns", draw(st.integers(1, 50)), draw(st.sampled_from(LEVELS)),
                       draw(st.integers(0, 30)), T0.timestamp() - draw(st.floats(-1e5, 1e8)), True)
            for i in range(count)]


signal = st.dictionaries(st.sampled_from([f"e{i}" for i in range(14)]), st.floats(-1.0, 30.0), max_size=14)


@settings(max_examples=200, deadline=None)
@given(entry_stats(), signal, signal, st.sampled_from([Weights(), Weights(0.6, 0.4, 0.0), Weights(0, 0, 1)]))
def test_scores_from_kept_prominences_equal_the_spec_formula(stats, vector, keyword, weights):
    ids = {s.id for s in stats}
    vector = {k: v for k, v in vector.items() if k in ids}
    keyword = {k: v for k, v in keyword.items() if k in ids}
    prominences = final_scores(stats, {}, {}, PROMINENCE_ONLY, T0)[0]
    expected, expected_weights = final_scores(stats, vector, keyword, weights, T0)
    got, got_weights = scores_with_prominence(prominences, vector, keyword, weights)
    assert got_weights == expected_weights
    assert got == pytest.approx(expected, abs=1e-12)


def store_of(*names_and_counts):
    store = InMemoryEntryStore()
    ids = {}
    for name, observations in names_and_counts:
        draft = EntryDraft(name=name, description=f"{name} note about builds", category="patterns",
                           observation_count=observations)
        ids[name] = store.upsert(draft, T0).entry_id
    return store, ids


def names(result):
    return [r.entry.name for r in result.selected]


def test_a_reinforced_entry_moves_up_in_the_next_search_of_the_same_process():
    store, _ = store_of(("Alpha", 5), ("Beta", 1))
    search = RetrieveAndRank(store, FakeClock(), Weights(), keyword_index=store)
    assert names(search.search("builds", limit=2)) == ["Alpha", "Beta"]
    for _ in range(9):  # Beta is seen again and again: its counters change, so do the kept prominences
        store.upsert(EntryDraft(name="Beta", description="Beta note about builds", category="patterns"), T0)
    assert names(search.search("builds", limit=2)) == ["Beta", "Alpha"]


def test_prominences_follow_the_clock_past_the_minute():
    store, _ = store_of(("Old", 3), ("New", 3))
    clock = FakeClock(T0 + timedelta(days=400))
    new_id = next(i for i, e in store.entries.items() if e.name == "New")
    store.entries[new_id] = replace(store.entries[new_id], updated_at=clock.now())
    search = RetrieveAndRank(store, clock, Weights(), keyword_index=store)
    first = {r.entry.name: r.score for r in search.search("builds", limit=2).selected}
    clock.advance(days=300)
    later = {r.entry.name: r.score for r in search.search("builds", limit=2).selected}
    assert later["New"] < first["New"]  # recency decays: the kept prominences were not reused


def test_ties_break_by_id_and_entries_no_signal_found_come_last():
    store, ids = store_of(("Zeta", 2), ("Eta", 2), ("Theta", 2))
    store.entries[ids["Theta"]] = replace(store.entries[ids["Theta"]],
                                      description="Theta note about nothing here")
    search = RetrieveAndRank(store, FakeClock(), Weights(), keyword_index=store)
    result = search.search("builds", limit=3)
    found = sorted([ids["Zeta"], ids["Eta"]])
    assert [r.entry.id for r in result.selected] == [*found, ids["Theta"]]
    assert [r.entry.id for r in search.search("builds", limit=1).selected] == found[:1]
