"""KeywordIndex contract: full-text search over name, description, keywords and reasoning."""

from __future__ import annotations

import pytest

from memory_adapters.sqlite_store import SqliteEntryStore
from memory_core.fts_query import sanitise_fts_query
from memory_core.models import EntryDraft
from memory_core.ports import KeywordIndex
from tests.fakes import T0, InMemoryEntryStore

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
    """Behaviour every KeywordIndex must show; subclasses supply the two store hooks."""

    def make_store(self, tmp_path):
        """Return a new, empty store with keyword search switched on."""
        raise NotImplementedError

    def make_store_without_keyword_search(self, tmp_path):
        """Return a new, empty store whose keyword search is switched off."""
        raise NotImplementedError

    @pytest.fixture
    def store(self, tmp_path):
        return self.make_store(tmp_path)

    def test_is_a_keyword_index_and_available(self, store):
        assert isinstance(store, KeywordIndex)
        assert store.keyword_search_available is True

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

    def test_switched_off_index_says_so_and_finds_nothing(self, tmp_path):
        store = self.make_store_without_keyword_search(tmp_path)
        add(store, "SQLite WAL mode avoids writer lock contention")
        assert store.keyword_search_available is False
        assert search(store, "contention") == {}


class TestSqliteKeywordIndex(KeywordIndexContract):
    def make_store(self, tmp_path):
        return SqliteEntryStore(path=str(tmp_path / "memory.db"))

    def make_store_without_keyword_search(self, tmp_path):
        return SqliteEntryStore(path=str(tmp_path / "memory.db"), enable_fts5=False)

    def test_malformed_match_query_returns_nothing_instead_of_raising(self, tmp_path):
        store = self.make_store(tmp_path)
        add(store, "SQLite WAL mode")
        assert store.keyword_search('"unterminated OR (', LIMIT) == {}


class TestInMemoryKeywordIndex(KeywordIndexContract):
    def make_store(self, tmp_path):
        return InMemoryEntryStore()

    def make_store_without_keyword_search(self, tmp_path):
        return InMemoryEntryStore(keyword_search=False)
