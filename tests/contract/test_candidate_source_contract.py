"""CandidateSource contract: a store that names session-start candidates (PostgreSQL, and the fake that stands
for it in the core's tests) counts what is in scope and names the prominent entries without loading all."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memory_core.entries.models import EntryDraft, EntryStats
from memory_core.ports.candidate_source import CandidateSource
from tests.fake_candidate_store import CandidateEntryStore
from tests.fakes import T0

OURS, THEIRS = "project:ours", "project:theirs"


@pytest.fixture(params=["fake", "postgres"])
def candidates(request, make_store):
    """An empty candidate source of each kind."""
    if request.param == "fake":
        return CandidateEntryStore(T0 + timedelta(days=30))
    return make_store("postgres")


def put(store, n: int, observations: int = 1, days: int = 0, recalls: int = 0, scope=None,
        vector: bool = False) -> str:
    draft = EntryDraft(name=f"entry {n}", description=f"candidate fact number {n}", category="patterns",
                       observation_count=observations, scope=scope)
    entry_id = store.upsert(draft, T0 + timedelta(days=days)).entry_id
    if recalls:
        for _ in range(recalls):
            store.record_recall([entry_id], T0 + timedelta(days=days))
    if vector:
        store.set_vector(entry_id, [1.0, float(n)])
    return entry_id


def test_it_is_a_candidate_source(candidates):
    assert isinstance(candidates, CandidateSource)


def test_the_summary_counts_entries_in_scope_and_those_without_a_vector(candidates):
    for n in range(5):
        put(candidates, n, vector=n < 2)
    put(candidates, 10, scope=OURS, vector=True)
    put(candidates, 11, scope=THEIRS)
    shared = put(candidates, 12, scope=THEIRS)
    candidates.add_scope(shared, OURS)
    assert candidates.ranking_summary() == (8, 5)
    assert candidates.ranking_summary([OURS]) == (7, 4)
    assert candidates.ranking_summary([THEIRS]) == (7, 5)


def test_the_prominent_entries_hold_the_most_observed_in_scope_and_nothing_outside(candidates):
    ids = [put(candidates, n, observations=1 + n % 3, days=n) for n in range(12)]
    most = put(candidates, 50, observations=9, days=-300)  # most observed, but old and never recalled
    outside = put(candidates, 51, observations=20, scope=THEIRS)
    chosen = candidates.prominent_stats(3, [OURS])
    chosen_ids = [s.id for s in chosen]
    assert most in chosen_ids and outside not in chosen_ids
    assert len(chosen_ids) == len(set(chosen_ids)) >= 3
    assert set(chosen_ids) <= set(ids) | {most}
    assert candidates.prominent_stats(100) and len(candidates.prominent_stats(100)) == 14


def test_ranking_fields_of_named_entries_leave_out_unknown_and_other_projects(candidates):
    mine = put(candidates, 1, observations=3, recalls=2, vector=True)
    scoped = put(candidates, 2, scope=OURS)
    theirs = put(candidates, 3, scope=THEIRS)
    found = {s.id: s for s in candidates.ranking_stats_of([mine, scoped, theirs, "0123456789abcdef"], [OURS])}
    assert set(found) == {mine, scoped}
    assert found[mine] == EntryStats(mine, "patterns", 3, "medium", 2, T0.timestamp(), True)
    assert candidates.ranking_stats_of([], [OURS]) == []
    assert {s.id for s in candidates.ranking_stats_of([mine, theirs])} == {mine, theirs}


def test_postgres_names_the_most_recent_and_the_most_recalled_too(make_store):
    store = make_store("postgres")
    for n in range(20):
        put(store, n, observations=2)
    recent = put(store, 30, days=40)
    recalled = put(store, 31, recalls=7)
    chosen = {s.id for s in store.prominent_stats(2)}
    assert {recent, recalled} <= chosen


def test_the_prominent_entries_hold_the_best_few_of_every_category(candidates):
    for n in range(15):
        put(candidates, n, observations=5, days=30, recalls=3)  # patterns: prominent in every way
    quiet = []
    for n in range(20, 24):
        draft = EntryDraft(name=f"quiet {n}", description=f"a quiet heuristic {n}", category="heuristics")
        quiet.append(candidates.upsert(draft, T0 - timedelta(days=n)).entry_id)
    chosen = {s.id for s in candidates.prominent_stats(2)}
    assert set(quiet[:3]) <= chosen  # the newest three heuristics


def test_one_category_is_counted_and_named_on_its_own(candidates):
    for n in range(12):
        put(candidates, n, observations=5, days=30, recalls=3)  # patterns, prominent
    quiet = []
    for n in range(20, 30):
        draft = EntryDraft(name=f"quiet {n}", description=f"a quiet heuristic {n}", category="heuristics")
        quiet.append(candidates.upsert(draft, T0 - timedelta(days=n)).entry_id)
    assert candidates.ranking_summary(None, "heuristics") == (10, 10)
    chosen = candidates.prominent_stats(6, None, "heuristics")
    assert {s.category for s in chosen} == {"heuristics"} and len(chosen) >= 6
