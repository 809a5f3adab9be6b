"""StagingVectorStore contract: a second vector set is built aside and swapped in only when complete."""

from __future__ import annotations

import pytest

from memory_adapters.vectors.float32 import pack_vector
from memory_core.entries.models import EntryDraft
from memory_core.ports.staging_vector_store import StagingVectorStore
from memory_core.embedding.space import EmbeddingSpace, pin_space, pinned_space, staged_space
from tests.fakes import T0

OLD = EmbeddingSpace("fake", "old-model", 2)
NEW = EmbeddingSpace("fake", "new-model", 3)
OTHER = EmbeddingSpace("other", "other-model", 4)
UNKNOWN_ID = "0123456789abcdef"


def old_vec(i: int) -> list[float]:
    return [float(i), 1.0]


def new_vec(i: int) -> list[float]:
    return [float(i), 2.0, 3.0]


class StagingStoreContract:
    """Behaviour every StagingVectorStore must show; subclasses name their `backend`."""

    @pytest.fixture
    def store(self, make_store):
        """A store pinned to OLD with three entries, each with an OLD vector."""
        store = make_store(self.backend)
        for i in range(3):
            entry_id = self.add(store, i)
            store.set_vector(entry_id, old_vec(i))
        pin_space(store, OLD)
        return store

    @staticmethod
    def add(store, i: int) -> str:
        draft = EntryDraft(name=f"Lesson {i}", description=f"Lesson number {i} about staging", category="patterns")
        return store.upsert(draft, T0).entry_id

    @staticmethod
    def ids(store) -> list[str]:
        return [e.id for e in store.all_entries()]

    def stage_all(self, store) -> dict[str, bytes]:
        """Stage a NEW vector for every entry; return them as `vectors()` yields them once promoted."""
        staged = {entry_id: new_vec(i) for i, entry_id in enumerate(self.ids(store))}
        for entry_id, vector in staged.items():
            store.set_staged_vector(entry_id, vector)
        return {entry_id: pack_vector(vector) for entry_id, vector in staged.items()}

    def test_implements_the_port(self, store):
        assert isinstance(store, StagingVectorStore)

    def test_start_staging_records_the_space_being_built(self, store):
        assert staged_space(store) is None
        store.start_staging(NEW)
        assert staged_space(store) == NEW
        assert pinned_space(store) == OLD

    def test_start_staging_forgets_previously_staged_vectors(self, store):
        store.start_staging(NEW)
        self.stage_all(store)
        assert store.unstaged_ids(10) == []
        store.start_staging(OTHER)
        assert staged_space(store) == OTHER
        assert sorted(store.unstaged_ids(10)) == sorted(self.ids(store))

    def test_unstaged_ids_lists_entries_without_a_staged_vector(self, store):
        store.start_staging(NEW)
        first, second, third = self.ids(store)
        store.set_staged_vector(second, new_vec(1))
        assert sorted(store.unstaged_ids(10)) == sorted([first, third])
        assert len(store.unstaged_ids(1)) == 1
        assert store.unstaged_ids(1)[0] in (first, third)

    def test_staging_never_touches_the_entries_own_vectors(self, store):
        before = dict(store.vectors())
        store.start_staging(NEW)
        self.stage_all(store)
        assert dict(store.vectors()) == before
        assert store.pending_ids(10) == []

    def test_staged_vector_for_an_unknown_id_is_ignored(self, store):
        store.start_staging(NEW)
        store.set_staged_vector(UNKNOWN_ID, new_vec(9))
        assert sorted(store.unstaged_ids(10)) == sorted(self.ids(store))
        self.stage_all(store)
        assert store.promote_staged(NEW) is True
        assert UNKNOWN_ID not in dict(store.vectors())
        assert store.get(UNKNOWN_ID) is None

    def test_promotion_refuses_while_any_entry_lacks_a_staged_vector(self, store):
        before = dict(store.vectors())
        store.start_staging(NEW)
        staged = self.stage_all(store)
        late = self.add(store, 99)
        assert store.promote_staged(NEW) is False
        assert dict(store.vectors()) == before
        assert pinned_space(store) == OLD
        assert staged_space(store) == NEW
        assert store.unstaged_ids(10) == [late]
        store.set_staged_vector(late, new_vec(99))
        assert store.promote_staged(NEW) is True
        assert dict(store.vectors()) == {**staged, late: pack_vector(new_vec(99))}

    def test_promotion_swaps_vectors_pins_the_space_and_clears_the_staging(self, store):
        store.start_staging(NEW)
        staged = self.stage_all(store)
        assert store.promote_staged(NEW) is True
        assert dict(store.vectors()) == staged
        assert all(len(blob) == 4 * NEW.dimensions for blob in staged.values())
        assert pinned_space(store) == NEW
        assert staged_space(store) is None
        for key in ("staged_embedding_provider", "staged_embedding_model", "staged_embedding_dimensions"):
            assert store.get_metadata(key) is None
        assert sorted(store.unstaged_ids(10)) == sorted(self.ids(store))

    def test_promotion_gives_a_vector_to_entries_that_had_none(self, store):
        pending = self.add(store, 7)
        assert store.pending_ids(10) == [pending]
        store.start_staging(NEW)
        self.stage_all(store)
        assert store.promote_staged(NEW) is True
        assert store.pending_ids(10) == []
        assert store.get(pending).has_embedding is True

    def test_deleting_a_staged_entry_does_not_block_promotion(self, store):
        store.start_staging(NEW)
        staged = self.stage_all(store)
        gone = self.ids(store)[0]
        assert store.delete(gone) is True
        assert gone not in store.unstaged_ids(10)
        assert store.promote_staged(NEW) is True
        assert dict(store.vectors()) == {k: v for k, v in staged.items() if k != gone}

    def test_deleting_the_last_unstaged_entry_allows_promotion(self, store):
        store.start_staging(NEW)
        first, *rest = self.ids(store)
        for entry_id in rest:
            store.set_staged_vector(entry_id, new_vec(5))
        assert store.promote_staged(NEW) is False
        store.delete(first)
        assert store.promote_staged(NEW) is True
        assert pinned_space(store) == NEW

    def test_an_empty_store_promotes_at_once(self, make_store):
        store = make_store(self.backend)
        store.start_staging(NEW)
        assert store.unstaged_ids(10) == []
        assert store.promote_staged(NEW) is True
        assert pinned_space(store) == NEW


class TestSqliteStagingStore(StagingStoreContract):
    backend = "sqlite"

    def test_staged_vectors_survive_a_reopen(self, store, make_store):
        store.start_staging(NEW)
        first = self.ids(store)[0]
        store.set_staged_vector(first, new_vec(0))
        store.close()
        reopened = make_store(self.backend)
        assert staged_space(reopened) == NEW
        assert first not in reopened.unstaged_ids(10)
        assert len(reopened.unstaged_ids(10)) == 2


class TestPostgresStagingStore(StagingStoreContract):
    backend = "postgres"

    def test_promotion_moves_the_hnsw_index_to_the_new_width(self, store):
        def hnsw_indexes():
            rows = store.connection.read("SELECT indexname FROM pg_indexes WHERE indexname LIKE '%%hnsw%%'")
            return [r[0] for r in rows]

        assert hnsw_indexes() == ["idx_entries_embedding_hnsw_2"]
        store.start_staging(NEW)
        self.stage_all(store)
        assert store.promote_staged(NEW) is True
        assert hnsw_indexes() == ["idx_entries_embedding_hnsw_3"]


class TestInMemoryStagingStore(StagingStoreContract):
    backend = "fake"
