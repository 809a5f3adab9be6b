"""The raw signals an absolute relevance reads (issue 23): how far an entry stands out among one query's cosines,
the share of the query's words it holds, and `search` giving every candidate all of them."""

from __future__ import annotations

import statistics

from hypothesis import given, strategies as st

from memory_core.ranking.relevance_signals import (BM25, BM25_PER_WORD, COSINE, COSINE_GAP, COSINE_Z, GAP_RANK,
                                                   PASSAGE_COSINE, QUERY_WORDS, RANK, WORD_SHARE, CosineSpread,
                                                   entry_words, query_words, signals_of)
from memory_core.ranking.absolute_relevance import KEYWORD_MATCH
from tests.fakes import InMemoryEntryStore
from tests.unit.test_recall import add, retrieve

SIGNALS = {COSINE, PASSAGE_COSINE, BM25, COSINE_Z, COSINE_GAP, RANK, WORD_SHARE, QUERY_WORDS, BM25_PER_WORD}


@given(st.lists(st.floats(-1.0, 1.0), min_size=1, max_size=40))
def test_the_spread_is_the_mean_the_population_deviation_and_the_tenth_best(cosines):
    spread = CosineSpread.of(cosines)
    assert abs(spread.mean - statistics.fmean(cosines)) < 1e-9
    assert abs(spread.std - statistics.pstdev(cosines)) < 1e-6
    assert spread.reference == sorted(cosines, reverse=True)[min(GAP_RANK, len(cosines)) - 1]


def test_an_entry_that_stands_out_gets_a_high_z_and_equal_cosines_give_zero():
    spread = CosineSpread.of([0.1] * 19 + [0.5])
    assert spread.z(0.5) > 4 > spread.z(0.1) == spread.z(0.1)
    assert CosineSpread.of([0.3, 0.3]).z(0.3) == 0.0 and CosineSpread.of([]) == CosineSpread()


def test_the_word_share_counts_the_query_words_the_entry_text_holds():
    store = InMemoryEntryStore()
    entry = store.get(add(store, "SQLite database is locked", "two writers; use WAL_mode and a busy timeout"))
    assert query_words("The database is locked, the database!") == ["database", "locked"]
    assert {"wal", "mode", "sqlite"} <= entry_words(entry)
    [signals] = signals_of([entry], "database locked by a cron job", None, [], {entry.id: 6.0})
    assert signals[WORD_SHARE] == 2 / 4 and signals[QUERY_WORDS] == 4 and signals[BM25_PER_WORD] == 1.5
    assert signals[COSINE] == signals[COSINE_Z] == signals[COSINE_GAP] == 0.0  # no vector: no cosine signals


def test_search_gives_every_candidate_every_signal_in_ranking_order():
    store = InMemoryEntryStore()
    ids = [add(store, f"Parser lesson {i}", f"tokenising parser input {i}", cosine=0.9 - 0.05 * i) for i in range(4)]
    ids += [add(store, f"Deploy note {i}", f"rollout step {i}", cosine=0.1) for i in range(20)]  # BM25's scale
    found = retrieve(store).search("parser tokenising", limit=5)
    assert [r.entry.id for r in found.selected][:4] == ids[:4]
    for rank, r in enumerate(found.selected, start=1):
        assert set(r.signals) == SIGNALS and r.signals[RANK] == rank and 0.0 <= r.relevance <= 1.0
    first = found.selected[0].signals
    assert first[COSINE_Z] > 1.5 and first[COSINE_GAP] > 0.7 and first[WORD_SHARE] == 1.0
    keywords_only = retrieve(store, with_model=False).search("parser tokenising", limit=5)
    assert all(r.signals[COSINE] == r.signals[COSINE_Z] == 0.0 for r in keywords_only.selected)


def test_a_store_too_small_for_bm25_gets_matched_or_not_and_no_bm25_signals():
    store = InMemoryEntryStore()
    add(store, "Parser lesson", "tokenising parser input", cosine=0.9)
    add(store, "Deploy note", "rollout step", cosine=0.1)
    [first, *_] = retrieve(store).search("parser", limit=2).selected
    assert first.signals[KEYWORD_MATCH] == 1.0 and BM25 not in first.signals and BM25_PER_WORD not in first.signals
    assert first.signals[WORD_SHARE] == 1.0 and first.signals[RANK] == 1


def test_the_spread_is_taken_over_the_entries_in_scope_only():
    store = InMemoryEntryStore()
    mine = add(store, "Parser lesson", "tokenising parser input", cosine=0.9, scope="p1")
    for i in range(12):
        add(store, f"Other project note {i}", f"rollout step {i}", cosine=0.85, scope="p2")
    for i in range(12):
        add(store, f"Deploy note {i}", f"rollout step {i}", cosine=0.1)
    [best, *_] = retrieve(store).search("parser", limit=3, scopes=["p1"]).selected
    assert best.entry.id == mine and best.signals[COSINE_Z] > 3  # p2's close cosines do not dim it


def test_the_clause_cosine_is_the_best_clause_and_the_whole_query_without_clauses():
    store = InMemoryEntryStore()
    entry = store.get(add(store, "Parser lesson", "tokenising parser input"))
    cosines = {entry.id: 0.3}
    [one] = signals_of([entry], "parser; deploy", cosines, [{entry.id: 0.2}, {entry.id: 0.6}], {})
    [whole] = signals_of([entry], "parser", cosines, [], {})
    assert one[PASSAGE_COSINE] == 0.6 and whole[PASSAGE_COSINE] == 0.3 == whole[COSINE]
