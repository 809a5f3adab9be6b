"""ReferenceIndex contract (the code-reference signal's lookup): the SQLite and PostgreSQL stores and the fake
alike."""

from __future__ import annotations

import pytest

from memory_core.entries.models import EntryDraft
from memory_core.ports.reference_index import ReferenceIndex
from tests.fakes import T0


@pytest.fixture(params=["sqlite", "postgres", "fake"])
def store(request, make_store):
    return make_store(request.param)


def add(store, description, references=()):
    draft = EntryDraft(name="n", description=description, category="patterns", references=list(references))
    return store.upsert(draft, T0).entry_id


def test_cited_files_lists_only_entries_with_references(store):
    assert isinstance(store, ReferenceIndex)
    assert store.cited_files() == {}
    citing = add(store, "Invalidate cache keys by prefix", ["src/cache/invalidate.py", "src/cache/keys.py"])
    add(store, "Review small diffs")
    assert store.cited_files() == {citing: ["src/cache/invalidate.py", "src/cache/keys.py"]}


def test_a_deleted_entry_is_no_longer_cited(store):
    citing = add(store, "Pin the lockfile", ["uv.lock"])
    store.delete(citing)
    assert store.cited_files() == {}
