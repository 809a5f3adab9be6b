"""closest_neighbours: each stored vector's closest others, for the review's near-duplicate queue."""

from __future__ import annotations

from memory_adapters.vectors import neighbours
from memory_adapters.vectors.float32 import pack_vector


class Stored:
    def __init__(self, vectors):
        self._vectors = vectors

    def vectors(self):
        return [(entry_id, pack_vector(vector)) for entry_id, vector in self._vectors.items()]


def test_each_entry_gets_its_close_others_only(monkeypatch):
    monkeypatch.setattr(neighbours, "BLOCK_ROWS", 2)  # several blocks: rows past the first keep their own index
    stored = Stored({"a": [1.0, 0.0, 0.0], "b": [0.9, 0.1, 0.0], "c": [0.0, 1.0, 0.0], "d": [0.0, 0.0, 2.0],
                     "e": [0.0, 0.0, 1.9], "odd": [1.0, 0.0]})

    found = neighbours.closest_neighbours(stored, min_cosine=0.8, per_entry=1)

    assert set(found) == {"a", "b", "d", "e"}, "c has nobody close; a vector of another length is left out"
    assert list(found["a"]) == ["b"] and list(found["d"]) == ["e"] and list(found["e"]) == ["d"]
    assert 0.99 < found["a"]["b"] < 1.0


def test_too_few_vectors_give_nothing():
    assert neighbours.closest_neighbours(Stored({"a": [1.0, 0.0]}), 0.5, 10) == {}
    assert neighbours.closest_neighbours(Stored({}), 0.5, 10) == {}
