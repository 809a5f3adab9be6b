"""VectorIndex contract: cosine similarity of a query against every stored vector of the right size."""

from __future__ import annotations

import math
import sqlite3
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_adapters.vectors.float32 import pack_vector, unpack_vector
from memory_adapters.vectors.numpy_vector_index import NumpyVectorIndex
from memory_adapters.vectors.postgres_vector_index import PostgresVectorIndex
from memory_adapters.store.sqlite.store import SqliteEntryStore
from memory_core.entries.models import EntryDraft
from memory_core.ports import VectorIndex
from memory_core.embedding.space import EmbeddingSpace, pin_space
from tests.fakes import T0, FakeVectorIndex, InMemoryEntryStore

DIMS = 4


class VectorIndexContract:
    """Behaviour every VectorIndex must show; subclasses name the store's `backend` and supply `make_index`
    (the index under test over a store, for vectors of `dimensions`)."""

    @pytest.fixture
    def index(self, store):
        return self.make_index(store, DIMS)

    def put(self, store, name: str, vector) -> str:
        """Store an entry named `name` with this vector (or these raw bytes, which no port writes); return its id."""
        draft = EntryDraft(name=name, description=f"entry {name}", category="patterns")
        entry_id = store.upsert(draft, T0).entry_id
        if not isinstance(vector, bytes):
            store.set_vector(entry_id, vector)
        elif isinstance(store, InMemoryEntryStore):
            store.vectors_by_id[entry_id] = vector
        elif isinstance(store, SqliteEntryStore):  # a torn or foreign row, as another program could leave it
            with sqlite3.connect(store.path) as conn:
                conn.execute("UPDATE entries SET embedding = ? WHERE id = ?", (vector, entry_id))
            conn.close()
        # PostgreSQL's vector column refuses a torn value: such an entry simply has no vector there.
        return entry_id

    def test_is_a_vector_index(self, index):
        assert isinstance(index, VectorIndex)

    def test_empty_store_gives_nothing(self, index):
        assert index.similarities([1.0, 0.0, 0.0, 0.0]) == {}

    def test_identical_unit_vectors_score_one_and_orthogonal_zero(self, store, index):
        same = self.put(store, "same", [0.5, 0.5, 0.5, 0.5])
        orthogonal = self.put(store, "orthogonal", [0.5, -0.5, 0.5, -0.5])
        opposite = self.put(store, "opposite", [-0.5, -0.5, -0.5, -0.5])
        scores = index.similarities([0.5, 0.5, 0.5, 0.5])
        assert set(scores) == {same, orthogonal, opposite}
        assert scores[same] == pytest.approx(1.0, abs=1e-6)
        assert scores[orthogonal] == pytest.approx(0.0, abs=1e-6)
        assert scores[opposite] == pytest.approx(-1.0, abs=1e-6)

    def test_closer_vectors_score_higher(self, store, index):
        near = self.put(store, "near", [0.8, 0.6, 0.0, 0.0])
        far = self.put(store, "far", [0.0, 0.6, 0.8, 0.0])
        scores = index.similarities([1.0, 0.0, 0.0, 0.0])
        assert scores[near] == pytest.approx(0.8, abs=1e-6)
        assert scores[near] > scores[far]

    def test_scores_are_plain_floats(self, store, index):
        self.put(store, "a", [1.0, 0.0, 0.0, 0.0])
        assert all(type(s) is float for s in index.similarities([1.0, 0.0, 0.0, 0.0]).values())

    def test_similarity_is_cosine_whatever_the_vector_lengths(self, store, index):
        # The port promises cosine similarity; nothing upstream L2-normalises embeddings before storing them.
        long = self.put(store, "long", [1.0, 2.0, 2.0, 0.0])  # length 3, same direction as the query
        short = self.put(store, "short", [0.0, 0.0, 0.0, 0.1])  # orthogonal
        tilted = self.put(store, "tilted", [10.0, 0.0, 0.0, 0.0])
        scores = index.similarities([2.0, 4.0, 4.0, 0.0])  # length 6
        assert scores[long] == pytest.approx(1.0, abs=1e-6)
        assert scores[short] == pytest.approx(0.0, abs=1e-6)
        assert scores[tilted] == pytest.approx(1.0 / 3.0, abs=1e-6)

    def test_wrong_size_vectors_are_ignored(self, store, index):
        good = self.put(store, "good", [1.0, 0.0, 0.0, 0.0])
        self.put(store, "short", [1.0, 0.0, 0.0])
        self.put(store, "long", [1.0, 0.0, 0.0, 0.0, 0.0])
        self.put(store, "ragged", b"\x00\x00\x80\x3f\x00")
        assert set(index.similarities([1.0, 0.0, 0.0, 0.0])) == {good}

    def test_reads_the_store_at_query_time(self, store, index):
        assert index.similarities([1.0, 0.0, 0.0, 0.0]) == {}
        added = self.put(store, "late", [1.0, 0.0, 0.0, 0.0])
        assert set(index.similarities([1.0, 0.0, 0.0, 0.0])) == {added}

    def test_the_index_reads_what_the_store_wrote(self, store, index):
        vector = [0.25, -1.5, math.pi, 0.0]
        entry_id = self.put(store, "exact", vector)
        assert dict(store.vectors())[entry_id] == pack_vector(vector)
        assert index.similarities(vector)[entry_id] == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("backend", ["fake", "sqlite", "postgres"])
class TestNumpyVectorIndex(VectorIndexContract):
    make_index = staticmethod(NumpyVectorIndex)


class TestPostgresVectorIndex(VectorIndexContract):
    backend = "postgres"
    make_index = staticmethod(PostgresVectorIndex)

    def test_nearest_comes_from_the_hnsw_index_of_the_pinned_width(self, store, index):
        pin_space(store, EmbeddingSpace("fake", "bow", DIMS))
        ids = [self.put(store, f"v{i}", [1.0, i / 10, 0.0, 0.0]) for i in range(20)]
        nearest = index.nearest([1.0, 0.0, 0.0, 0.0], 3)
        assert list(nearest) == ids[:3]
        assert nearest[ids[0]] == pytest.approx(1.0, abs=1e-6)

        def plan(conn):
            conn.execute("SET LOCAL enable_seqscan = off")  # a tiny table is scanned; a large one is not
            return " ".join(r[0] for r in conn.execute(
                "EXPLAIN SELECT id FROM entries WHERE vector_dims(embedding) = 4 "
                "ORDER BY embedding::vector(4) <=> '[1,0,0,0]'::vector(4) LIMIT 3"))

        assert "idx_entries_embedding_hnsw_4" in store.connection.transaction(plan)

    def test_a_zero_query_scores_zero_instead_of_nan(self, store, index):
        entry_id = self.put(store, "a", [1.0, 0.0, 0.0, 0.0])
        zero = self.put(store, "zero", [0.0, 0.0, 0.0, 0.0])
        assert index.similarities([0.0, 0.0, 0.0, 0.0]) == {entry_id: 0.0, zero: 0.0}
        assert index.similarities([1.0, 0.0, 0.0, 0.0])[zero] == 0.0


class TestFakeVectorIndex(VectorIndexContract):
    backend = "fake"

    def make_index(self, store, dimensions):
        return FakeVectorIndex(store, dimensions)


class TestNumpyVectorIndexCache:
    """The flat cache file: session starts only read it, and nothing half-written outlives its writer."""

    def stored(self, tmp_path, count: int = 5):
        store = SqliteEntryStore(path=str(tmp_path / "memory.db"))
        for i in range(count):
            draft = EntryDraft(name=f"n{i}", description=f"entry {i}", category="patterns")
            store.set_vector(store.upsert(draft, T0).entry_id, [1.0, float(i), 0.0, 0.0])
        return store

    def test_a_read_only_index_loads_a_stale_cache_from_the_database_and_writes_nothing(self, tmp_path):
        store = self.stored(tmp_path)
        cache = tmp_path / "memory.db.vectors"
        index = NumpyVectorIndex(store, DIMS, cache_path=str(cache), write_cache=False)
        assert index.prepare() and len(index.similarities([1.0, 0.0, 0.0, 0.0])) == 5
        assert not cache.exists() and not index.cache_fresh
        assert sorted(p.name for p in tmp_path.iterdir()) == ["memory.db", "memory.db-shm", "memory.db-wal"]

    def test_a_load_past_its_deadline_gives_up_and_keeps_nothing(self, tmp_path, monkeypatch):
        import memory_adapters.vectors.numpy_vector_index as module
        from memory_core.session.deadline import Deadline
        from tests.fakes import FakeTicker

        monkeypatch.setattr(module, "CHUNK_ROWS", 2)
        store = self.stored(tmp_path, 9)
        ticker = FakeTicker(start=0.0)
        reads = []
        real = store.vectors_after

        def slow_chunk(rowid, limit):  # every chunk costs 0.4 s of the fake clock
            reads.append(rowid)
            ticker.now += 0.4
            return real(rowid, limit)

        monkeypatch.setattr(store, "vectors_after", slow_chunk)
        index = NumpyVectorIndex(store, DIMS, cache_path=str(tmp_path / "memory.db.vectors"), write_cache=False)
        assert index.prepare(Deadline(ticker, 1.0)) is False
        assert len(reads) == 3, "the deadline is checked between chunks"
        assert not (tmp_path / "memory.db.vectors").exists()

    def test_temp_files_of_dead_writers_are_removed_by_the_next_rebuild(self, tmp_path):
        import os
        import time

        from memory_adapters.fs.temp_files import remove_abandoned_temps

        store = self.stored(tmp_path)
        cache = tmp_path / "memory.db.vectors"
        dead = exited_pid()
        abandoned = tmp_path / f"memory.db.vectors.tmp-{dead}"
        abandoned.write_bytes(b"x" * 1000)
        legacy = tmp_path / ".vectors-abc123"
        legacy.write_bytes(b"x" * 1000)
        old = time.time() - 3600
        os.utime(legacy, (old, old))
        from memory_adapters.fs.temp_files import temp_path

        mine = Path(temp_path(str(cache)))
        mine.write_bytes(b"in progress")

        NumpyVectorIndex(store, DIMS, cache_path=str(cache)).refresh()

        assert cache.exists() and not abandoned.exists() and not legacy.exists()
        assert remove_abandoned_temps(str(cache), legacy_pattern=".vectors-*") == 0
        assert not mine.exists(), "this process's own temp file became the cache"


def exited_pid() -> int:
    """The pid of a process that has already exited (and been reaped)."""
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@settings(max_examples=200)
@given(st.lists(st.floats(width=32, allow_nan=False, allow_infinity=False), max_size=64))
def test_stored_vectors_round_trip_as_little_endian_float32(values):
    blob = pack_vector(values)
    assert len(blob) == 4 * len(values)
    assert list(struct.unpack(f"<{len(values)}f", blob)) == values == unpack_vector(blob)


def test_stored_vectors_are_little_endian():
    assert pack_vector([1.0]) == b"\x00\x00\x80\x3f"
    assert pack_vector([]) == b""
