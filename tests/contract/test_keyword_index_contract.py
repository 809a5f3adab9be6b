"""KeywordIndex contract: full-text search over name, description, keywords and reasoning."""

from __future__ import annotations

from memory_core.ranking.absolute_relevance import BM25_SCALE, TS_RANK_CD_SCALE
from memory_core.ranking.fts_query import sanitise_fts_query
from memory_core.entries.models import EntryDraft
from memory_core.ports import KeywordIndex
from tests.fakes import T0

LIMIT = 50


def add(store, description: str, **fields) -> str:
    """Upsert one entry and return its id."""
    values = {"name": "learning", "description": description, "category": "heuristics"}
    values.update(fields)
    return store.upsert(EntryDraft(**values), T0).entry_id


def search(store, text: str, limit: int = LIMIT) -> dict[str, float]:
    """Search the way the retrieval use case does: raw text, sanitised into an OR query."""
    query = sanitise_fts_query(text)
    assert query is not None
    return store.keyword_search(query, limit)


class KeywordIndexContract:
    """Behaviour every KeywordIndex must show; subclasses name their `backend` (the `store` fixture's)."""

    def test_is_a_keyword_index_and_available(self, store):
        assert isinstance(store, KeywordIndex)
        assert store.keyword_search_available is True

    def test_says_which_scale_its_scores_are_on(self, store):
        # the absolute relevance reads BM25 as BM25 and any other scale as matched or not
        assert store.keyword_scale in (BM25_SCALE, TS_RANK_CD_SCALE)

    def test_returns_matching_ids_only(self, store):
        sqlite = add(store, "SQLite WAL mode avoids writer lock contention")
        add(store, "Pydantic validators normalise keyword lists")
        add(store, "Render the memory block with anti-patterns first")
        assert set(search(store, "Why is there lock contention in the database?")) == {sqlite}

    def test_searches_name_and_reasoning_too(self, store):
        by_name = add(store, "first description", name="Idempotent migrations")
        by_reason = add(store, "second description", reasoning="because retries happen")
        assert set(search(store, "idempotent")) == {by_name}
        assert set(search(store, "retries")) == {by_reason}

    def test_more_relevant_text_scores_higher(self, store):
        both = add(store, "Parser error recovery keeps the parser going after a syntax error")
        one = add(store, "Error budgets belong in the deployment runbook")
        scores = search(store, "parser syntax recovery error")
        assert set(scores) == {both, one}
        assert scores[both] > scores[one]

    def test_every_match_scores_above_zero(self, store):
        # The ranker clips negative scores to 0, so a match must never score <= 0 (BM25 is negated).
        ids = {add(store, f"common term appears in entry {i}") for i in range(3)}
        scores = search(store, "common")
        assert set(scores) == ids
        assert all(score > 0 for score in scores.values())

    def test_limit_caps_the_number_of_results(self, store):
        for i in range(4):
            add(store, f"flaky test number {i}")
        assert len(search(store, "flaky", limit=2)) == 2

    def test_no_match_is_empty(self, store):
        add(store, "SQLite WAL mode")
        assert search(store, "kubernetes") == {}

    def test_keywords_stored_as_json_list_are_searchable_as_words(self, store):
        entry_id = add(store, "Readers never wait", keywords=["busy-timeout", "wal-checkpoint"])
        assert set(search(store, "checkpoint")) == {entry_id}
        assert set(search(store, "busy timeout")) == {entry_id}

    def test_upsert_with_new_keywords_reindexes(self, store):
        entry_id = add(store, "Readers never wait", keywords=["alpha-marker"])
        add(store, "readers never   WAIT", keywords=["gamma-marker"])
        assert set(search(store, "gamma")) == {entry_id}
        assert search(store, "alpha") == {}

    def test_reinforcement_without_keywords_keeps_them_searchable(self, store):
        entry_id = add(store, "Readers never wait", keywords=["alpha-marker"])
        add(store, "Readers never wait")
        assert set(search(store, "alpha")) == {entry_id}

    def test_deleted_entry_no_longer_matches(self, store):
        gone = add(store, "Delete stale caches on deploy", keywords=["cache-invalidation"])
        kept = add(store, "Warm caches after deploy")
        store.delete(gone)
        assert set(search(store, "caches invalidation")) == {kept}

    def test_recall_and_vectors_do_not_disturb_the_index(self, store):
        entry_id = add(store, "Retry with jitter", keywords=["backoff"])
        store.record_recall([entry_id], T0)
        store.set_vector(entry_id, [0.0, 0.0])
        assert set(search(store, "backoff jitter")) == {entry_id}

    def test_switched_off_index_says_so_and_finds_nothing(self, make_store):
        store = make_store(self.backend, keyword_search=False)
        add(store, "SQLite WAL mode avoids writer lock contention")
        assert store.keyword_search_available is False
        assert search(store, "contention") == {}


class TestSqliteKeywordIndex(KeywordIndexContract):
    backend = "sqlite"

    def test_scores_are_bm25(self, store):
        assert store.keyword_scale == BM25_SCALE

    def test_malformed_match_query_returns_nothing_instead_of_raising(self, store):
        add(store, "SQLite WAL mode")
        assert store.keyword_search('"unterminated OR (', LIMIT) == {}


class TestPostgresKeywordIndex(KeywordIndexContract):
    backend = "postgres"

    def test_scores_are_ts_rank_cd_not_bm25(self, store):
        assert store.keyword_scale == TS_RANK_CD_SCALE

    def test_a_query_of_operators_and_quotes_is_searched_as_its_words(self, store):
        entry_id = add(store, "SQLite WAL mode")
        assert set(store.keyword_search('"wal" OR (mode) OR !:* OR <->', LIMIT)) == {entry_id}
        assert store.keyword_search("& | ! ( )", LIMIT) == {}

    def test_words_in_other_scripts_are_found(self, store):
        entry_id = add(store, "Größere Tabellen brauchen einen Index", keywords=["übersicht"])
        assert set(search(store, "GRÖSSERE tabellen")) == {entry_id}
        assert set(search(store, "Übersicht")) == {entry_id}

    def test_search_can_use_the_gin_index(self, store):
        from memory_adapters.store.postgres.search import _SEARCH

        def plan(conn):
            conn.execute("SET LOCAL enable_seqscan = off")  # a tiny table is scanned; a large one is not
            return " ".join(row[0] for row in conn.execute("EXPLAIN " + _SEARCH, ("wal | mode", 5)))

        assert "idx_entries_search" in store.connection.transaction(plan)


class TestInMemoryKeywordIndex(KeywordIndexContract):
    backend = "fake"
