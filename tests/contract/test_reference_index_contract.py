"""ReferenceIndex contract (the code-reference signal's lookup), the SQLite store and the fake alike; and the
`memory_ranking` setting that turns the signal on."""

from __future__ import annotations

import pytest

from memory_apps.config import load_config
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


@pytest.mark.parametrize("value, expected", [("relevance", "relevance"), ("spec", "spec"), ("magic", "spec")])
def test_memory_ranking_setting(tmp_path, capsys, value, expected):
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "iflow-dev.local.md").write_text(f"---\nmemory_ranking: {value}\n---\n")
    assert load_config(str(tmp_path)).ranking == expected
    assert ("memory_ranking: invalid value" in capsys.readouterr().err) == (value == "magic")


def test_spec_is_the_default_ranking(tmp_path):
    assert load_config(str(tmp_path)).ranking == "spec"
