"""RetrieveAndRank: ranking by relevance (AC1b), degradation (D2) and category balance (AC12)."""

from __future__ import annotations

import math
import struct

import pytest

from memory_core.entries.models import EntryDraft
from memory_core.ranking.scoring import Weights
from memory_core.embedding.space import EmbeddingSpace, pin_space
from memory_core.usecases.retrieve import RetrieveAndRank
from tests.fakes import FakeClock, FakeEmbedder, FakeVectorIndex, InMemoryEntryStore, T0

DIMS = 8
CATS = ("anti-patterns", "heuristics", "patterns")
QUERY = "building a file parser with error handling"


def unit(vec):
    norm = math.sqrt(sum(v * v for v in vec))
    return [v / norm for v in vec]


QUERY_VEC = unit([1.0] + [0.0] * (DIMS - 1))


class StubEmbedder:
    def __init__(self, provider="stub", model="stub-model", dimensions=DIMS):
        self.provider_name, self.model_name, self.dimensions = provider, model, dimensions
        self.queries = []

    def embed_documents(self, texts):
        raise AssertionError("retrieval must not embed documents")

    def embed_query(self, text):
        self.queries.append(text)
        return QUERY_VEC


def add(store, name, desc, category, obs=2, confidence="medium"):
    draft = EntryDraft(name=name, description=desc, category=category, observation_count=obs, confidence=confidence)
    return store.upsert(draft, T0).entry_id


def ac1b_store():
    """20 parser entries (cos > 0.8) and 30 others (cos < 0.3), spread over the categories."""
    store = InMemoryEntryStore()
    parser_ids = []
    for i in range(20):
        eid = add(store, f"Parser lesson {i}", f"Parser note {i} about tokenising input", CATS[i % 3], obs=2 + i % 2)
        vec = unit([1.0, 0.3 + 0.01 * i] + [0.05] * (DIMS - 2))
        store.set_vector(eid, vec)
        parser_ids.append(eid)
    for i in range(30):
        topic = "deployment" if i < 20 else "testing"
        eid = add(store, f"{topic} lesson {i}", f"{topic} note {i} on rollout", CATS[i % 3], obs=2 + (i + 1) % 2)
        vec = unit([0.1 + 0.005 * i, 0.0] + [1.0 if j == i % (DIMS - 2) else 0.2 for j in range(DIMS - 2)])
        store.set_vector(eid, vec)
    pin_space(store, EmbeddingSpace("stub", "stub-model", DIMS))
    return store, parser_ids


def cosine(a, b):
    return sum(x * y for x, y in zip(a, b))


def test_ac1b_parser_entries_dominate_the_top_25():
    store, parser_ids = ac1b_store()
    for eid, blob in store.vectors():  # precondition of AC1b on the fixture itself
        sim = cosine(struct.unpack(f"<{DIMS}f", blob), QUERY_VEC)
        assert (sim > 0.8) if eid in parser_ids else (sim < 0.3)
    embedder = StubEmbedder()
    use = RetrieveAndRank(store, FakeClock(), Weights(), keyword_index=store, embedder=embedder,
                          vector_index=FakeVectorIndex(store, DIMS))
    result = use.run(QUERY, 25)
    chosen = [r.entry.id for r in result.selected]
    assert len(chosen) == 25
    assert sum(1 for eid in chosen if eid in parser_ids) >= 18
    assert result.vector.ran and result.vector.matches >= 20
    assert embedder.queries == [QUERY]
    assert result.model == "stub-model"


def small_store():
    store = InMemoryEntryStore()
    add(store, "Parser check", "Verify the parser against real files", "anti-patterns")
    add(store, "Deploy", "Roll out deployments gradually", "patterns", obs=5)
    add(store, "Tests", "Run the tests before committing", "heuristics")
    return store


def test_without_embedder_keyword_signal_runs_and_weights_redistribute():
    store = small_store()
    result = RetrieveAndRank(store, FakeClock(), Weights(), keyword_index=store).run(QUERY, 10)
    assert not result.vector.ran and result.vector.reason
    assert result.keyword.ran and result.keyword.matches >= 1
    assert (result.weights.vector, result.weights.keyword, result.weights.prominence) == pytest.approx((0.0, 0.4, 0.6))
    assert result.selected[0].entry.name == "Parser check"


def test_embedder_in_another_space_is_not_used():
    store = small_store()
    for eid in store.entries:
        store.set_vector(eid, unit([1.0] * 64))
    pin_space(store, EmbeddingSpace("fake", "fake-bow", 64))
    embedder = StubEmbedder(provider="other", model="other-model", dimensions=DIMS)
    result = RetrieveAndRank(store, FakeClock(), Weights(), keyword_index=store, embedder=embedder,
                             vector_index=FakeVectorIndex(store, DIMS)).run(QUERY, 10)
    assert not result.vector.ran
    assert "fake/fake-bow" in result.vector.reason and "other/other-model" in result.vector.reason
    assert embedder.queries == []
    assert result.weights.vector == 0.0


def test_no_context_ranks_by_prominence_only_and_makes_no_query_embedding():
    store = small_store()
    for eid in store.entries:
        store.set_vector(eid, unit([1.0] * 64))
    embedder = FakeEmbedder()
    pin_space(store, EmbeddingSpace.of(embedder))
    result = RetrieveAndRank(store, FakeClock(), Weights(), keyword_index=store, embedder=embedder,
                             vector_index=FakeVectorIndex(store, 64)).run(None, 10)
    assert not result.vector.ran and not result.keyword.ran
    assert result.weights.prominence == pytest.approx(1.0)
    assert embedder.calls == []
    assert result.selected[0].entry.name == "Deploy"  # highest observation count


def test_keyword_index_unavailable_is_reported_as_fts5():
    store = InMemoryEntryStore(keyword_search=False)
    add(store, "Parser check", "Verify the parser against real files", "anti-patterns")
    result = RetrieveAndRank(store, FakeClock(), Weights(), keyword_index=store).run(QUERY, 10)
    assert not result.keyword.ran
    assert "FTS5" in result.keyword.reason
    assert len(result.selected) == 1


def test_ac12_min_three_per_category_with_limit_nine():
    store = InMemoryEntryStore()
    for i in range(15):
        add(store, f"Parser trap {i}", f"Parser trap number {i}", "anti-patterns", obs=9, confidence="high")
    for i in range(4):
        add(store, f"Heuristic {i}", f"Rule of thumb {i}", "heuristics", obs=1, confidence="low")
    for i in range(2):
        add(store, f"Pattern {i}", f"Good habit {i}", "patterns", obs=1, confidence="low")
    result = RetrieveAndRank(store, FakeClock(), Weights(), keyword_index=store).run("parser trap", 9)
    cats = [r.entry.category for r in result.selected]
    assert len(cats) == 9
    assert cats.count("heuristics") >= 3 and cats.count("patterns") == 2
    assert cats.count("anti-patterns") == 4
