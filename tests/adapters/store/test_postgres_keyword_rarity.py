"""Full-text search on a large team store: ts_rank_cd knows no word rarity and ranking the matches of a word
most entries hold reads most rows, so above COMMON_FROM_ROWS entries the common words of a query are left out."""

from __future__ import annotations

import pytest

from memory_adapters.store.postgres import search as postgres_search
from memory_core.entries.models import EntryDraft
from tests.fakes import T0


@pytest.fixture
def store(make_store):
    """A PostgreSQL store of 60 entries that all say "retry"; one also says "jitter"; statistics analysed."""
    made = make_store("postgres")
    for n in range(60):
        extra = " with jitter" if n == 7 else ""
        made.upsert(EntryDraft(name=f"Retry rule {n}", description=f"Retry call {n} with backoff{extra}.",
                               category="patterns"), T0)
    made.connection.write("ANALYZE entries")
    return made


def test_a_large_store_ranks_by_the_rare_words_of_a_query(store, monkeypatch):
    monkeypatch.setattr(postgres_search, "COMMON_FROM_ROWS", 50)  # as if 60 entries were a large store
    monkeypatch.setattr(postgres_search, "COMMON_SHARE", 0.05)  # "jitter": 1 in 60; "retry": all of them
    found = store.keyword_search("retry OR jitter", 500)
    assert [store.get(i).name for i in found] == ["Retry rule 7"]
    assert store.keyword_search("retry OR backoff", 500) == {}  # nothing left that tells entries apart


def test_a_small_store_keeps_every_word(store):
    assert len(store.keyword_search("retry OR jitter", 500)) == 60
