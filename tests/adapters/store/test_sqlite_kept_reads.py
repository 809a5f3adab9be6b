"""What the SQLite store and the numpy index keep between reads (issue 12) is dropped as soon as anyone commits:
this connection, another connection in this process, or another process."""

from __future__ import annotations

import subprocess
import sys

import pytest

from memory_adapters.vectors.numpy_vector_index import NumpyVectorIndex
from memory_adapters.store.sqlite.store import SqliteEntryStore
from memory_core.entries.models import EntryDraft
from tests.fakes import T0

DIMS = 4


def put(store: SqliteEntryStore, name: str, description: str, vector=None) -> str:
    entry_id = store.upsert(EntryDraft(name=name, description=description, category="patterns"), T0).entry_id
    if vector is not None:
        store.set_vector(entry_id, vector)
    return entry_id


@pytest.fixture
def db(tmp_path) -> str:
    return str(tmp_path / "memory.db")


@pytest.fixture
def store(db):
    opened = SqliteEntryStore(db)
    yield opened
    opened.close()


@pytest.fixture
def other(db, store):
    """A second connection to the same file (as another host or a writer in this process would have)."""
    opened = SqliteEntryStore(db)
    yield opened
    opened.close()


def test_change_token_moves_with_every_commit_and_only_then(store, other, db):
    first = store.change_token()
    assert store.change_token() == first, "nothing committed, nothing changed"
    put(store, "Own write", "Written through this connection.")
    after_own = store.change_token()
    assert after_own != first
    put(other, "Other write", "Written through another connection.")
    after_other = store.change_token()
    assert after_other != after_own
    script = ("import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
              "c.execute(\"UPDATE entries SET recall_count = 7\"); c.commit()")
    subprocess.run([sys.executable, "-c", script, db], check=True, timeout=60)
    assert store.change_token() != after_other, "another process's commit is seen"


def test_ranking_stats_see_another_connections_writes(store, other):
    kept = put(store, "Kept", "An entry both connections know.")
    assert [s.id for s in store.ranking_stats()] == [kept]
    assert [s.id for s in store.ranking_stats()] == [kept]
    new = put(other, "New", "An entry the other connection adds.")
    other.record_recall([kept], T0)
    stats = {s.id: s for s in store.ranking_stats()}
    assert set(stats) == {kept, new}
    assert stats[kept].recall_count == 1


def test_ranking_stats_are_the_callers_own_list(store):
    put(store, "One", "The only entry.")
    store.ranking_stats().clear()
    assert len(store.ranking_stats()) == 1


def test_ranking_stats_are_kept_per_scope_set(store):
    universal = put(store, "Universal", "Every project sees this one.")
    scoped = put(store, "Scoped", "Only project a sees this one.")
    store.set_scope(scoped, "git:a")
    assert {s.id for s in store.ranking_stats(("git:a",))} == {universal, scoped}
    assert {s.id for s in store.ranking_stats(("git:b",))} == {universal}
    assert {s.id for s in store.ranking_stats(("git:a",))} == {universal, scoped}
    assert {s.id for s in store.ranking_stats()} == {universal, scoped}


def test_keyword_search_names_the_right_entry_after_another_connection_reused_a_rowid(store, other):
    put(store, "Alpha", "Quote the fields of an export file.")
    last = put(store, "Beta", "Quote the header row of an export file.")
    assert set(store.keyword_search("quote", 10)) == {put(store, "Alpha", "Quote the fields of an export file."),
                                                      last}
    store.keyword_search("quote", 10)  # a second search with nothing changed: the ids are kept from here
    other.delete(last)
    replacement = put(other, "Gamma", "Quote every cell that holds a delimiter.")  # takes the freed rowid
    found = store.keyword_search("quote", 10)
    assert replacement in found and last not in found
    assert store.keyword_search("delimiter", 10).keys() == {replacement}


def test_kept_entries_are_the_callers_own_copies(store):
    entry_id = store.upsert(EntryDraft(name="Lists", description="Keywords and references are lists.",
                                       category="patterns", keywords=["lists"], references=["a.py"]), T0).entry_id
    for _ in range(2):  # the first read keeps the entry, the second is served from what was kept
        first = store.get_many([entry_id])[0]
        first.keywords.append("changed by a caller")
        first.references.clear()
    again = store.get_many([entry_id])[0]
    assert again.keywords == ["lists"] and again.references == ["a.py"]


def test_kept_entries_follow_a_changed_row(store, other):
    entry_id = put(store, "Before", "The same description, twice.")
    assert store.get_many([entry_id])[0].name == "Before"
    other.upsert(EntryDraft(name="After", description="The same description, twice.", category="patterns"), T0)
    entry = store.get_many([entry_id])[0]
    assert entry.name == "After" and entry.observation_count == 2


def test_a_kept_vector_matrix_is_reloaded_only_when_vectors_changed(store, other, db):
    index = NumpyVectorIndex(store, DIMS, cache_path=db + ".vectors")
    first = put(store, "First", "The first vector.", [1.0, 0.0, 0.0, 0.0])
    assert index.similarities([1.0, 0.0, 0.0, 0.0]) == pytest.approx({first: 1.0})
    index.similarities([0.0, 1.0, 0.0, 0.0])
    assert index.loads == 1, "nothing changed: the matrix is kept"

    other.record_recall([first], T0)  # a commit that touches no vector
    index.similarities([1.0, 0.0, 0.0, 0.0])
    assert index.loads == 1

    second = put(other, "Second", "The second vector.", [0.0, 1.0, 0.0, 0.0])
    assert index.similarities([0.0, 1.0, 0.0, 0.0]) == pytest.approx({first: 0.0, second: 1.0})
    assert index.loads == 2

    put(store, "Third", "A vector written through the index's own connection.", [0.0, 0.0, 1.0, 0.0])
    assert len(index.similarities([0.0, 0.0, 1.0, 0.0])) == 3


def test_a_repeated_keyword_search_gives_the_same_hits_as_the_callers_own_dict(store, other):
    first = put(store, "Alpha", "Quote the fields of an export file.")
    for _ in range(2):  # the second is answered from the kept hits
        store.keyword_search("quote", 10).clear()
    assert store.keyword_search("quote", 10).keys() == {first}
    second = put(other, "Beta", "Quote the header row of an export file.")
    assert store.keyword_search("quote", 10).keys() == {first, second}
