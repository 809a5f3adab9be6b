"""nearest_neighbours: each stored vector's closest others, as review's near-duplicate finder reads them."""

from __future__ import annotations

import pytest

from memory_adapters.vectors import neighbours as module
from memory_adapters.vectors.float32 import pack_vector
from memory_adapters.vectors.neighbours import nearest_neighbours


def rows(*vectors):
    return [(f"e{i}", pack_vector(v)) for i, v in enumerate(vectors)]


def test_each_entry_gets_its_closest_others_above_the_floor_never_itself():
    found = nearest_neighbours(rows([1, 0, 0], [0.96, 0.28, 0], [0, 0, 1]), min_cosine=0.5, per_entry=5)
    assert found["e2"] == {}  # compared, and nothing close: not left to a keyword search
    assert found["e0"] == {"e1": pytest.approx(0.96, abs=1e-6)}
    assert found["e1"] == {"e0": pytest.approx(0.96, abs=1e-6)}


def test_at_most_per_entry_neighbours_the_closest_first(monkeypatch):
    monkeypatch.setattr(module, "BLOCK_ROWS", 2)  # several blocks: the same answer
    found = nearest_neighbours(rows([1, 0], [0.9, 0.1], [0.8, 0.2], [0.7, 0.3]), min_cosine=-1.0, per_entry=1)
    assert found["e0"].keys() == {"e1"} and found["e3"].keys() == {"e2"}


def test_vectors_of_another_length_are_left_out_and_a_lone_vector_has_no_neighbour():
    assert nearest_neighbours(rows([1, 0], [1, 0, 0]), min_cosine=-1.0, per_entry=3) == {"e0": {}}
    assert nearest_neighbours([], min_cosine=0.0, per_entry=3) == {}
