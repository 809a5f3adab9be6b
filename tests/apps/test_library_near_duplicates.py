"""The library's remember names the stored learnings a new one rewords and takes `merge_into` (ADR 26), here on
a store without vectors (`embedding_provider: none`): the keyword-only rule, which only a close rewording passes."""

from __future__ import annotations

import pytest

from memory_core.entries.hashing import content_hash
from memory_core.errors import InvalidEntry

ORIGINAL = dict(name="Quote CSV fields", category="anti-patterns", reasoning="Columns shifted.",
                description="Never split CSV rows by hand on commas; use the csv module so quoted fields survive.")
REWORDED = dict(name="Quote CSV fields", category="anti-patterns", reasoning="Seen again in the export.",
                references=["src/export.py"],
                description="Never split CSV rows by hand on commas: use the csv module so quoted fields survive "
                            "intact.")
OTHER = dict(name="Roll back first", category="heuristics", reasoning="An outage ran long.",
             description="When a deploy breaks production, roll back before debugging.")


@pytest.fixture
def memory(tmp_path, isolated_home):
    from memory_apps import MemoryService
    from memory_apps.config import MemoryConfig

    service = MemoryService(str(tmp_path / "store"), str(tmp_path), settings=MemoryConfig(embedding_provider="none"),
                            create=True)
    service.remember(**ORIGINAL)
    yield service
    service.close()


def test_remember_names_the_learning_it_rewords_and_stores_it_all_the_same(memory):
    result = memory.remember(**REWORDED)

    assert result.created and not result.merged
    assert [(n.entry_id, n.name) for n in result.near_duplicates] == [(content_hash(ORIGINAL["description"]),
                                                                       ORIGINAL["name"])]
    assert memory.remember(**OTHER).near_duplicates == []
    assert len(memory.entries()) == 3


def test_merge_into_reinforces_the_named_learning(memory):
    original = content_hash(ORIGINAL["description"])

    result = memory.remember(**REWORDED, merge_into=original[:5])

    assert (result.merged, result.entry_id, result.observation_count) == (True, original, 2)
    assert [e.id for e in memory.entries()] == [original]
    assert memory.get(original).references == ["src/export.py"]


def test_merge_into_an_unknown_learning_is_invalid(memory):
    with pytest.raises(InvalidEntry) as raised:
        memory.remember(**REWORDED, merge_into="0123456789abcdef")
    assert (raised.value.field, raised.value.message) == ("merge_into", "no entry with id 0123456789abcdef")
    assert len(memory.entries()) == 1
