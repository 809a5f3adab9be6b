"""The review's near-duplicate finder over a real SQLite store: pairs among the entries with a vector, and an entry
without one judged by its words alone, scored as a write scores a draft (memory_apps/wiring/lifecycle.py)."""

from __future__ import annotations

from memory_apps.config import MemoryConfig
from memory_apps.wiring.container import build_container
from memory_apps.wiring.lifecycle import near_duplicate_pairs
from memory_core.entries.models import EntryDraft
from tests.fakes import FakeClock


def test_pairs_of_entries_whose_vectors_and_words_agree(tmp_path):
    container = build_container(MemoryConfig(embedding_provider="none"), str(tmp_path / "store"))
    store = container.store()
    ids = [store.upsert(EntryDraft(name=name, description=text, category="anti-patterns"), FakeClock().now()).entry_id
           for name, text in [("Quote CSV fields", "Never split CSV rows by hand; use the csv module."),
                              ("Do not split CSV yourself", "Splitting CSV rows by hand breaks quoted fields."),
                              ("Roll back first", "Roll back a broken deploy before debugging it."),
                              ("No vector yet", "Never split CSV rows by hand; use the csv module, really.")]]
    for entry_id, vector in zip(ids, ([1.0, 0.0, 0.0], [0.95, 0.31, 0.0], [0.0, 0.0, 1.0])):
        store.set_vector(entry_id, vector)

    pairs = near_duplicate_pairs(store)(store.all_entries())

    found = {(a, b): score for a, b, score in pairs}
    by_vector, by_words = tuple(sorted(ids[:2])), tuple(sorted((ids[0], ids[3])))
    assert set(found) == {by_vector, by_words}  # "Roll back first" is in no pair
    assert found[by_vector] >= 0.65 and found[by_words] >= 0.47
    store.close()


def test_an_entry_whose_vector_has_no_close_neighbour_is_not_searched_again_by_words(tmp_path):
    # At 10k entries one keyword search per entry took minutes: only an entry without a vector is judged by words.
    container = build_container(MemoryConfig(embedding_provider="none"), str(tmp_path / "store"))
    store = container.store()
    ids = [store.upsert(EntryDraft(name=name, description=text, category="patterns"), FakeClock().now()).entry_id
           for name, text in [("Quote CSV fields", "Never split CSV rows by hand; use the csv module."),
                              ("Quote CSV fields always", "Never split CSV rows by hand; use the csv module!"),
                              ("Unembedded", "Pin the lockfile before a release build.")]]
    for entry_id, vector in zip(ids, ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0])):
        store.set_vector(entry_id, vector)
    searched = []
    real_search = store.keyword_search
    store.keyword_search = lambda query, limit: searched.append(query) or real_search(query, limit)

    pairs = near_duplicate_pairs(store)(store.all_entries())

    assert tuple(sorted(ids[:2])) not in {(a, b) for a, b, _ in pairs}  # their vectors disagree: no pair by words
    assert len(searched) == 1  # only "Unembedded"
    store.close()
