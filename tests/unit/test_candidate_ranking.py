"""Ranking from a candidate source (a server-side store at 1M entries): the entries the signals found plus the
prominent ones are ranked, never every row, and the ranking is the one the whole store would give."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import given, settings, strategies as st

from memory_core.session.deadline import Deadline
from memory_core.entries.models import EntryDraft
from memory_core.ranking.scoring import Weights
from memory_core.embedding.space import EmbeddingSpace, pin_space
from memory_core.usecases.importing import ImportKnowledgeBank
from memory_core.usecases.retrieve import RetrieveAndRank
from memory_core.usecases.session_start import SessionRequest, SessionStart
from tests.fake_candidate_store import CandidateEntryStore
from tests.fakes import (
    FakeClock, FakeContextSource, FakeEmbedder, FakeKnowledgeBankReader, FakeProjectLayout, FakeSharedWork,
    FakeTicker, FakeVectorIndex, InMemoryEntryStore, T0,
)
from tests.unit._session_harness import BANK, CATS, CONTEXT, ROOT, STORE_DIR

NOW = T0 + timedelta(days=90)
WORDS = ("csv", "parser", "quote", "deploy", "retry", "cache", "lock", "clock")
QUERY = "parse csv files with quote handling and retry"

entry_spec = st.tuples(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=4),  # the description's words
    st.integers(1, 9),  # observations
    st.sampled_from(("low", "medium", "high")),
    st.integers(0, 80),  # days before NOW it was written
    st.integers(0, 12),  # recalls
    st.sampled_from(CATS),
)


def fill(store, specs, embedder=None) -> None:
    """The same entries, counters and vectors in any store."""
    for n, (words, observations, confidence, age, recalls, category) in enumerate(specs):
        draft = EntryDraft(name=f"lesson {n}", description=f"note {n}: " + " ".join(words), category=category,
                           observation_count=observations, confidence=confidence)
        entry_id = store.upsert(draft, NOW - timedelta(days=age)).entry_id
        for _ in range(recalls):
            store.record_recall([entry_id], NOW)
        if embedder is not None:
            store.set_vector(entry_id, embedder.embed_documents([draft.description])[0])
    if embedder is not None:
        pin_space(store, EmbeddingSpace.of(embedder))


def ranker(store, embedder=None, prominent: int = 200) -> RetrieveAndRank:
    index = FakeVectorIndex(store, embedder.dimensions) if embedder is not None else None
    return RetrieveAndRank(store, FakeClock(NOW), Weights(), keyword_index=store, embedder=embedder,
                           vector_index=index, prominent_candidates=prominent)


def ranked(retrieval) -> list[tuple[str, float]]:
    return [(r.entry.id, round(r.score, 12)) for r in retrieval.selected]


@settings(max_examples=40, deadline=None)
@given(specs=st.lists(entry_spec, min_size=1, max_size=40), limit=st.integers(1, 8), with_vectors=st.booleans())
def test_searching_candidates_gives_the_whole_stores_ranking(specs, limit, with_vectors):
    whole, candidates = InMemoryEntryStore(), CandidateEntryStore(NOW)
    embedder = FakeEmbedder(dimensions=16) if with_vectors else None
    fill(whole, specs, embedder)
    fill(candidates, specs, embedder)
    expected = ranker(whole, embedder).search(QUERY, limit)
    found = ranker(candidates, embedder, prominent=limit).search(QUERY, limit)
    assert ranked(found) == ranked(expected)
    assert found.total == expected.total == len(specs)


@settings(max_examples=40, deadline=None)
@given(specs=st.lists(entry_spec, min_size=1, max_size=40), limit=st.integers(1, 12))
def test_a_keyword_session_over_candidates_selects_what_the_whole_store_selects(specs, limit):
    whole, candidates = InMemoryEntryStore(), CandidateEntryStore(NOW)
    fill(whole, specs)
    fill(candidates, specs)
    expected = ranker(whole).run(QUERY, limit)
    found = ranker(candidates, prominent=limit).run(QUERY, limit)
    assert ranked(found) == ranked(expected)
    assert (found.total, found.pending_embeddings) == (expected.total, expected.pending_embeddings)


def test_only_the_prominent_and_the_found_entries_are_loaded():
    store = CandidateEntryStore(NOW)
    fill(store, [(["deploy", "lock"], 1, "low", 60, 0, CATS[n % 3]) for n in range(30)]
         + [(["csv", "quote"], 1, "low", 60, 0, "patterns"), (["cache"], 9, "high", 0, 10, "heuristics")])
    found = ranker(store, prominent=3).run(QUERY, 5)
    csv_id = next(e.id for e in store.all_entries() if "csv" in e.description)
    assert store.asked_for == [csv_id]  # the keyword hit; the prominent ones came with the basis
    assert csv_id in [r.entry.id for r in found.selected]
    assert found.total == 32


def test_pending_vectors_are_counted_over_every_entry_in_scope():
    store = CandidateEntryStore(NOW)
    embedder = FakeEmbedder(dimensions=16)
    fill(store, [(["csv"], 1, "low", 1, 0, "patterns")] * 1, embedder)
    fill(store, [(["deploy", str(n)], 1, "low", 1, 0, "patterns") for n in range(5)])  # no vectors
    found = ranker(store, embedder, prominent=2).run(QUERY, 3)
    assert found.vector.ran and found.pending_embeddings == 5 and found.total == 6


def session_over(store, embedder, prominent: int):
    """A SessionStart over `store`, as the hook runs it."""
    clock = FakeClock(NOW)
    index = FakeVectorIndex(store, embedder.dimensions)
    retrieve = RetrieveAndRank(store=store, clock=clock, weights=Weights(), keyword_index=store, embedder=embedder,
                               vector_index=index, prominent_candidates=prominent)
    reader = FakeKnowledgeBankReader({BANK: []})
    return SessionStart(store=store, retrieve=retrieve,
                        importer=lambda: ImportKnowledgeBank(reader=reader, store=store, clock=clock,
                                                             layout=FakeProjectLayout()),
                        context_source=FakeContextSource(CONTEXT), shared_work=FakeSharedWork(()), clock=clock)


def test_a_session_start_over_candidates_ranks_by_meaning_like_the_whole_store():
    specs = [([w, WORDS[(n * 3) % len(WORDS)]], 1 + n % 4, "medium", n, n % 3, CATS[n % 3])
             for n, w in enumerate(WORDS * 4)]
    answers = []
    for store in (InMemoryEntryStore(), CandidateEntryStore(NOW)):
        embedder = FakeEmbedder(dimensions=16)
        fill(store, specs, embedder)
        ticker = FakeTicker(start=100.0, real_grace_s=10.0)
        use_case = session_over(store, embedder, prominent=5)
        answer = use_case.run(SessionRequest(ROOT, STORE_DIR, 10), Deadline.after(ticker, 2.0))
        use_case.finish(answer, [])
        answers.append(answer)
    whole, candidates = answers
    assert candidates.retrieval.vector.ran and candidates.step == whole.step
    assert ranked(candidates.retrieval) == ranked(whole.retrieval)
    assert candidates.retrieval.total == whole.retrieval.total == len(specs)


def test_the_most_observed_entry_sets_the_prominence_scale_even_when_it_ranks_low():
    specs = [(["deploy"], 9, "low", 80, 0, "patterns")]  # most observed, yet old, unsure and never recalled
    specs += [(["lock", str(n)], 1 + n % 2, "high", n, 3, CATS[n % 3]) for n in range(12)]
    specs += [(["csv", "quote"], 2, "medium", 40, 0, "patterns"), (["csv", "retry"], 1, "high", 2, 0, "heuristics")]
    whole, candidates = InMemoryEntryStore(), CandidateEntryStore(NOW)
    fill(whole, specs)
    fill(candidates, specs)
    expected = ranker(whole).search(QUERY, 6)
    found = ranker(candidates, prominent=3).search(QUERY, 6)
    assert ranked(found) == ranked(expected)


def test_no_limit_ranks_every_entry_even_from_a_candidate_source():
    store = CandidateEntryStore(NOW)
    store.ranking_stats = InMemoryEntryStore.ranking_stats.__get__(store)  # "no limit" reads them all
    fill(store, [(["deploy", str(n)], 1, "low", n, 0, CATS[n % 3]) for n in range(30)])
    found = ranker(store, prominent=3).run(QUERY, -1)
    assert len(found.selected) == found.total == 30


def test_a_keyword_search_that_fails_costs_only_the_keyword_signal():
    from memory_core.errors import StorageError
    from memory_core.usecases.retrieve import KEYWORD_SEARCH_FAILED

    store = CandidateEntryStore(NOW)
    embedder = FakeEmbedder(dimensions=16)
    fill(store, [([w], 1, "low", 1, 0, CATS[n % 3]) for n, w in enumerate(WORDS)], embedder)

    def cancelled(match, limit):
        raise StorageError("PostgreSQL at postgresql://team:***@db/memory: canceling statement due to timeout")

    store.keyword_search = cancelled
    found = ranker(store, embedder, prominent=3).run(QUERY, 5)
    assert found.vector.ran and not found.keyword.ran and found.keyword.reason == KEYWORD_SEARCH_FAILED
    assert len(found.selected) == 5


def test_a_search_of_one_category_over_candidates_finds_what_the_whole_store_finds():
    specs = [(["deploy", str(n)], 5, "high", 1, 4, "patterns") for n in range(30)]
    specs += [(["lock", str(n)], 1, "low", 60 + n, 0, "heuristics") for n in range(12)]
    whole, candidates = InMemoryEntryStore(), CandidateEntryStore(NOW)
    fill(whole, specs)
    fill(candidates, specs)
    expected = ranker(whole).search(QUERY, 10, category="heuristics")
    found = ranker(candidates, prominent=3).search(QUERY, 10, category="heuristics")
    assert ranked(found) == ranked(expected) and len(found.selected) == 10
    assert found.total == expected.total == 12
