"""The absolute relevance's models and floors (issue 23), and `search`'s good matches."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory_core.entries.models import EntryDraft
from memory_core.ranking.absolute_relevance import (BM25, BM25_FROM_ENTRIES, BM25_SCALE, COSINE, KEYWORD_MATCH,
                                                    KEYWORD_MATCHED, KEYWORDS_ONLY, MEANING_ONLY, PASSAGE_COSINE,
                                                    TS_RANK_CD_SCALE, WITH_MODEL, keyword_signal, read_scale,
                                                    relevance_model)
from memory_core.ranking.scoring import Weights
from memory_core.usecases.retrieve import RetrieveAndRank
from tests.fakes import FakeClock, InMemoryEntryStore, T0

MODELS = (WITH_MODEL, KEYWORDS_ONLY, MEANING_ONLY, KEYWORD_MATCHED)


@pytest.mark.parametrize("vector_ran, scale, model", [
    (True, BM25_SCALE, WITH_MODEL), (False, BM25_SCALE, KEYWORDS_ONLY),
    (True, TS_RANK_CD_SCALE, MEANING_ONLY), (False, TS_RANK_CD_SCALE, KEYWORD_MATCHED)])
def test_the_model_follows_the_vector_signal_and_the_keyword_scale(vector_ran, scale, model):
    assert relevance_model(vector_ran, scale) is model
    assert relevance_model(vector_ran) is relevance_model(vector_ran, BM25_SCALE)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.name)
def test_a_result_no_signal_found_is_never_a_good_match(model):
    # what nonsense gets: no cosine worth the name, no keyword: only prominence put it in the results
    assert model.relevance({}) < model.search_floor
    assert model.search_floor <= model.hook_floor, "search keeps recall; the hook is the stricter"


def test_bm25_is_read_as_bm25_only_in_a_store_large_enough_for_word_rarity():
    assert read_scale(BM25_SCALE, BM25_FROM_ENTRIES) == BM25_SCALE
    assert read_scale(BM25_SCALE, BM25_FROM_ENTRIES - 1) == TS_RANK_CD_SCALE
    assert read_scale(TS_RANK_CD_SCALE, 10**6) == TS_RANK_CD_SCALE


def test_a_keyword_score_on_another_scale_is_read_as_matched_or_not():
    assert keyword_signal(7.5, BM25_SCALE) == {BM25: 7.5}
    assert keyword_signal(0.03, TS_RANK_CD_SCALE) == {KEYWORD_MATCH: 1.0}
    assert keyword_signal(0.0, TS_RANK_CD_SCALE) == {KEYWORD_MATCH: 0.0}
    assert KEYWORD_MATCHED.relevance({KEYWORD_MATCH: 1.0}) >= KEYWORD_MATCHED.search_floor


@given(st.floats(-1, 1), st.floats(-1, 1), st.floats(0, 60), st.floats(0, 0.5))
def test_relevance_is_in_range_and_grows_with_each_signal(cosine, passage, bm25, more):
    signals = {COSINE: cosine, PASSAGE_COSINE: passage, BM25: bm25}
    for model in (WITH_MODEL, KEYWORDS_ONLY):
        base = model.relevance(signals)
        assert 0.0 <= base <= 1.0
        for name in signals:
            assert model.relevance({**signals, name: signals[name] + more}) >= base


def search_over(scale: str, entries: int = BM25_FROM_ENTRIES):
    """A keyword-only search over `entries` entries, one about CSV quoting, on a keyword index of `scale`."""
    store = InMemoryEntryStore()
    store.keyword_scale = scale
    csv = store.upsert(EntryDraft(name="Quote CSV fields", description="Quote csv fields with delimiters",
                                  category="patterns"), T0).entry_id
    for n in range(entries - 1):
        store.upsert(EntryDraft(name=f"Note {n}", description=f"build note number {n}", category="heuristics"), T0)
    return RetrieveAndRank(store=store, clock=FakeClock(T0), weights=Weights(), keyword_index=store), csv


@pytest.mark.parametrize("scale", [BM25_SCALE, TS_RANK_CD_SCALE])
def test_search_marks_nonsense_weak_and_a_match_good(scale):
    search, csv = search_over(scale)

    nonsense = search.search("zzzzqqq", 5)
    found = search.search("quote csv delimiters", 5)

    assert len(nonsense.selected) == 5 and nonsense.good_matches() == []
    assert [r.entry.id for r in found.good_matches()] == [csv]
    assert found.search_floor == relevance_model(False, scale).search_floor
    assert set(found.selected[0].signals) == {COSINE, PASSAGE_COSINE, BM25 if scale == BM25_SCALE else KEYWORD_MATCH}


def test_a_small_store_reads_bm25_as_matched_or_not():
    search, csv = search_over(BM25_SCALE, entries=3)

    found = search.search("quote csv delimiters", 3)

    assert found.relevance_model is KEYWORD_MATCHED and found.search_floor == KEYWORD_MATCHED.search_floor
    assert [r.entry.id for r in found.good_matches()] == [csv]
