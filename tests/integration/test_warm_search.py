"""A long-running host (the MCP server, a library user) searches without redoing what did not change (issue 12):
no matrix reload, no ranking-stats read, no identity lookup, no second embedding of a repeated query; and what
another connection or process commits is in the very next search."""

from __future__ import annotations

import subprocess

import pytest

from memory_adapters.project import identity as project_identity
from memory_adapters.embedders.local_embedder import LocalOnnxEmbedder
from memory_adapters.vectors.numpy_vector_index import NumpyVectorIndex
from memory_adapters.store.sqlite.entries import SqliteEntries
from memory_adapters.store.sqlite.store import SqliteEntryStore
from tests._helpers import PYTHON, TIMEOUT_S, app_env
from tests._learnings import UNRELATED, remember_unrelated

pytestmark = pytest.mark.slow

QUOTE_CSV = ("Quote CSV fields", "Quote CSV fields that contain delimiters or newlines in spreadsheet exports.")
SPREADSHEET = "writing spreadsheet exports with quoted fields"


class Counts:
    """Counts calls of methods, wrapped in place with monkeypatch (undone after the test)."""

    def __init__(self, monkeypatch) -> None:
        self._monkeypatch = monkeypatch
        self.calls: dict[str, int] = {}

    def count(self, owner, name: str, label: str) -> None:
        original = getattr(owner, name)
        self.calls[label] = 0

        def counted(*args, **kwargs):
            self.calls[label] += 1
            return original(*args, **kwargs)

        self._monkeypatch.setattr(owner, name, counted)


@pytest.fixture
def paths(tmp_path, isolated_home):
    project = tmp_path / "bank-app"
    project.mkdir()
    return {"store": str(tmp_path / "global-store"), "project": str(project), "home": isolated_home}


@pytest.fixture
def memory(paths):
    from memory_apps import MemoryService

    service = MemoryService(global_store=paths["store"], project_root=paths["project"])
    remember_unrelated(service)
    return service


@pytest.fixture
def counts(monkeypatch):
    counter = Counts(monkeypatch)
    counter.count(NumpyVectorIndex, "_matrix", "matrix loads")
    counter.count(SqliteEntries, "_read_ranking_stats", "ranking stats reads")
    counter.count(project_identity, "_root_commit", "identity lookups")
    counter.count(LocalOnnxEmbedder, "embed_query", "query embeddings")
    project_identity.project_identity.cache_clear()
    return counter


def ranked(found) -> list[tuple[str, float]]:
    return [(hit.entry.id, hit.score) for hit in found.selected]


def same_ranking(a: list[tuple[str, float]], b: list[tuple[str, float]]) -> bool:
    """Same entries in the same order with the same scores (recency moves with the clock between two searches)."""
    return [i for i, _ in a] == [i for i, _ in b] and [s for _, s in a] == pytest.approx([s for _, s in b], abs=1e-4)


def test_a_warm_search_redoes_nothing_that_did_not_change(memory, paths, counts):
    first = memory.search("safe database migrations")
    assert first.vector.ran and first.keyword.ran
    warmed = dict(counts.calls)
    assert warmed == {"matrix loads": 1, "ranking stats reads": 1, "identity lookups": 1, "query embeddings": 1}

    memory.search("reviewing large pull requests")
    again = memory.search("safe database migrations")

    assert counts.calls["matrix loads"] == 1, "the vector matrix is kept"
    assert counts.calls["ranking stats reads"] == 1, "the ranking stats are kept"
    assert counts.calls["identity lookups"] == 1, "the project identity is kept"
    assert counts.calls["query embeddings"] == 2, "a repeated query is not embedded again"
    assert same_ranking(ranked(again), ranked(first))


def test_warm_results_are_the_results_of_a_new_service(memory, paths):
    from memory_apps import MemoryService

    queries = ["safe database migrations", "reviewing large pull requests", "tests that depend on dates"]
    warm = [ranked(memory.search(q, limit=3)) for q in queries for _ in range(2)]
    cold = [ranked(MemoryService(global_store=paths["store"], project_root=paths["project"]).search(q, limit=3))
            for q in queries for _ in range(2)]
    assert all(same_ranking(w, c) for w, c in zip(warm, cold)), (warm, cold)


def test_a_write_by_another_process_is_in_the_next_search(memory, paths, counts):
    before = memory.search(SPREADSHEET)
    assert all(hit.entry.name != QUOTE_CSV[0] for hit in before.selected)
    script = ("import sys; from memory_apps import MemoryService; "
              "MemoryService(global_store=sys.argv[1], project_root=sys.argv[2]).remember("
              "sys.argv[3], sys.argv[4], reasoning='Unquoted commas shifted every column.', category='patterns')")
    subprocess.run([PYTHON, "-c", script, paths["store"], paths["project"], *QUOTE_CSV], env=app_env(paths["home"]),
                   cwd=str(paths["home"]), check=True, timeout=TIMEOUT_S, capture_output=True)

    after = memory.search(SPREADSHEET)

    assert after.selected[0].entry.name == QUOTE_CSV[0], ranked(after)
    assert after.total == before.total + 1 and after.vector.matches >= 1
    assert counts.calls["matrix loads"] == 2, "the new vector was loaded"


def test_a_write_through_another_connection_is_in_the_next_search(memory, paths, counts):
    top = memory.search("deploying on Friday").selected[0].entry
    other = SqliteEntryStore(paths["store"] + "/memory.db")
    try:
        other.record_recall([e.id for e in memory.entries() if e.id != top.id], top.updated_at)
        recalled = memory.search("deploying on Friday", include_weak=True)  # the other entries match weakly
        assert counts.calls["matrix loads"] == 1, "no vector changed: the matrix is kept"
        assert counts.calls["ranking stats reads"] == 2, "recall counts changed: the stats are read again"
        assert {hit.entry.recall_count for hit in recalled.selected if hit.entry.id != top.id} == {1}
        other.delete(top.id)
    finally:
        other.close()

    after = memory.search("deploying on Friday")

    assert top.id not in {hit.entry.id for hit in after.selected}
    assert after.total == len(UNRELATED) - 1
