"""The `relevance` ranking (ADR 18): code references, keywords trusted as far as the vector signal agrees,
prominence as a prior that cannot outweigh a clear relevance difference; `spec` stays the default."""

from __future__ import annotations

import math

import pytest

from memory_core.ranking.code_references import reference_match, reference_scores
from memory_core.entries.models import EntryDraft
from memory_core.entries.records import EntryStats
from memory_core.ranking.relevance_fusion import PassageSignals, RelevanceTuning, agreement, min_max, relevance_scores
from memory_core.ranking.scoring import Weights
from memory_core.embedding.space import EmbeddingSpace, pin_space
from memory_core.usecases.retrieve import RetrieveAndRank
from tests.fakes import FakeClock, FakeVectorIndex, InMemoryEntryStore, T0

DIMS = 4


def unit(*values):
    norm = math.sqrt(sum(v * v for v in values))
    return [v / norm for v in values]


class FixedEmbedder:
    provider_name, model_name, dimensions = "stub", "stub-model", DIMS

    def embed_documents(self, texts):
        raise AssertionError("retrieval must not embed documents")

    def embed_query(self, text):
        return unit(1.0, 0.0, 0.0, 0.0)


def add(store, name, description, vector, references=(), observations=1, confidence="medium"):
    draft = EntryDraft(name=name, description=description, category="patterns", references=list(references),
                       observation_count=observations, confidence=confidence)
    entry_id = store.upsert(draft, T0).entry_id
    store.set_vector(entry_id, unit(*vector))
    return entry_id


def ranking(store, kind="relevance"):
    pin_space(store, EmbeddingSpace("stub", "stub-model", DIMS))
    return RetrieveAndRank(store, FakeClock(), Weights(), keyword_index=store, embedder=FixedEmbedder(),
                           vector_index=FakeVectorIndex(store, DIMS), ranking=kind, references=store)


@pytest.mark.parametrize("reference, expected", [
    ("src/cache/invalidate.py", 1.0),          # the file the session changes
    ("./src/cache/invalidate.py", 1.0),
    ("cache/invalidate.py", 1.0),              # a path suffix of it
    ("lib/other/invalidate.py", 0.6),          # same file name elsewhere
    ("src/cache/keys.py", 0.3),                # same directory
    ("src/auth/tokens.py", 0.0),
    ("", 0.0),
])
def test_reference_match_grades_path_name_and_directory(reference, expected):
    assert reference_match([reference], ["src/cache/invalidate.py", "README.md"]) == expected


def test_reference_scores_only_for_entries_that_match_and_none_without_files():
    cited = {"a": ["src/cache/invalidate.py"], "b": ["docs/x.md"]}
    assert reference_scores(cited, ["src/cache/invalidate.py"]) == {"a": 1.0}
    assert reference_scores(cited, []) == {}


def test_min_max_scales_to_unit_range_and_missing_ids_count_as_lowest():
    assert min_max({"a": 4.0, "b": 2.0}, ["a", "b", "c"]) == {"a": 1.0, "b": 0.5, "c": 0.0}
    assert min_max({"a": 1.0, "b": 1.0}, ["a", "b"]) == {"a": 0.0, "b": 0.0}


def test_agreement_is_low_when_the_keyword_hits_are_far_from_the_query_vector():
    vector = {"near": 1.0, "far": 0.0, "mid": 0.5}
    assert agreement(vector, {"near": 1.0}, hits=5, power=2) == 1.0
    assert agreement(vector, {"far": 1.0}, hits=5, power=2) == 0.0
    assert agreement(vector, {"mid": 1.0}, hits=5, power=2) == pytest.approx(0.25)
    assert agreement({"x": 0.0}, {"far": 1.0}, hits=5, power=2) == 1.0  # no vector signal: keywords count in full


def test_an_entry_citing_a_changed_file_ranks_above_an_equally_similar_one():
    store = InMemoryEntryStore()
    plain = add(store, "Warm the cache after deploys", "Prime hot keys after a release", (1.0, 0.2, 0.0, 0.0))
    cited = add(store, "Invalidate by key prefix", "Drop keys by prefix after writes", (1.0, 0.2, 0.0, 0.0),
                references=["src/cache/invalidate.py"])
    for kind, first in (("relevance", cited), ("spec", None)):
        result = ranking(store, kind).run("session work", 10, changed_files=["src/cache/invalidate.py"])
        ids = [r.entry.id for r in result.selected]
        if first is not None:
            assert ids[0] == first
        else:  # the spec formula has no reference signal: the tie stays a tie
            assert result.selected[0].score == pytest.approx(result.selected[1].score)
    assert {plain, cited} == set(ids)


def test_prominence_cannot_outweigh_a_clear_relevance_difference():
    store = InMemoryEntryStore()
    relevant = add(store, "Parser errors with line numbers", "Report the line of a bad record",
                   (1.0, 0.0, 0.0, 0.0))
    popular = add(store, "Deploy on Tuesdays", "Release early in the week", (0.7, 0.714, 0.0, 0.0),
                  observations=50, confidence="high")
    for _ in range(10):
        store.record_recall([popular], T0)
    relevance = [r.entry.id for r in ranking(store, "relevance").run("tokenising input", 10).selected]
    spec = [r.entry.id for r in ranking(store, "spec").run("tokenising input", 10).selected]
    assert relevance[0] == relevant
    assert spec[0] == popular  # the spec formula's 0.3 prominence weight outweighs cosine 1.0 vs 0.7


def test_keyword_hits_the_vector_signal_disowns_do_not_outrank_the_vector_match():
    store = InMemoryEntryStore()
    meant = add(store, "Charge a card once", "Send an idempotency token with each payment attempt",
                (1.0, 0.1, 0.0, 0.0))
    decoy = add(store, "Cache the search page", "Retries of search queries hit the cache page",
                (0.0, 0.0, 1.0, 0.0))
    result = ranking(store, "relevance").run("search page retries", 10)
    assert result.keyword.ran and result.keyword.matches == 1
    assert [r.entry.id for r in result.selected][0] == meant
    assert decoy in [r.entry.id for r in result.selected]


def test_unknown_ranking_is_refused():
    with pytest.raises(ValueError, match="unknown ranking"):
        RetrieveAndRank(InMemoryEntryStore(), FakeClock(), Weights(), ranking="magic")


def test_tuning_defaults_are_documented_values():
    tuning = RelevanceTuning()
    assert (tuning.keyword, tuning.references, tuning.prominence) == (1.0, 0.3, 0.05)
    assert (tuning.passage_keyword, tuning.passage_best, tuning.whole) == (0.75, 0.3, 0.5)


def stats_of(*ids):
    return [EntryStats(i, "patterns", 1, "medium", 0, T0.timestamp(), True) for i in ids]


def test_an_entry_about_one_passage_outranks_one_vaguely_about_everything():
    """A spec that mixes concerns: the learning about one of its sentences beats one that is a bit like all."""
    stats = stats_of("focused", "vague", "a", "b", "other")
    whole = {"focused": 0.38, "vague": 0.40, "a": 0.35, "b": 0.35, "other": 0.1}
    low = dict.fromkeys(whole, 0.1)
    passages = [PassageSignals({**low, "focused": 0.9, "vague": 0.4}, {}),
                PassageSignals({**low, "a": 0.9, "vague": 0.4}, {}),
                PassageSignals({**low, "b": 0.9, "vague": 0.4}, {})]
    with_passages = relevance_scores(stats, whole, {}, {}, T0, passages=passages)
    whole_only = relevance_scores(stats, whole, {}, {}, T0)
    assert with_passages["focused"] > with_passages["vague"] > with_passages["other"]
    assert whole_only["vague"] > whole_only["focused"], "the whole query alone prefers the vague entry"


def test_a_passage_keyword_hit_counts_even_when_its_vector_is_missing():
    stats = stats_of("named", "unnamed")
    passages = [PassageSignals({}, {"named": 3.0}), PassageSignals({"named": 0.2, "unnamed": 0.2}, {})]
    scores = relevance_scores(stats, {"named": 0.2, "unnamed": 0.2}, {}, {}, T0, passages=passages)
    assert scores["named"] > scores["unnamed"]


def test_search_scores_each_clause_of_a_long_query_with_the_relevance_ranking():
    store = InMemoryEntryStore()
    add(store, "Pin the tokenizer", "Pin the tokenizer file next to the weights", (1.0, 0.0, 0.0, 0.0))
    use = ranking(store)
    seen = []
    use._embedder = type("Recording", (FixedEmbedder,), {"embed_query": lambda self, t: seen.append(t) or
                                                         unit(1.0, 0.0, 0.0, 0.0)})()
    use.search("pin the tokenizer; parse the config file", limit=1)
    assert seen == ["pin the tokenizer; parse the config file", "pin the tokenizer;", "parse the config file"]
