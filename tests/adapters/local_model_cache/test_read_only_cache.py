"""write_model_cache=False: a valid entry is used; nothing is ever written, built or moved."""

from __future__ import annotations

import os

import pytest

from memory_adapters.fs import file_identity
from memory_adapters.embedders.onnx_model_cache import CACHE_SUBDIR
from tests.adapters.local_model_cache._helpers import (
    SOURCE, HashSpy, LoadSpy, assert_same_vectors, damage, embed, mode, only_entry, snapshot,
)

def test_without_writing_a_valid_entry_is_used_unread(cache, monkeypatch, reference):
    before = snapshot(cache)
    spy, hashes = LoadSpy(monkeypatch, SOURCE), HashSpy(monkeypatch)
    assert_same_vectors(embed(cache_dir=str(cache), write=False), reference)
    assert spy.kinds == ["cache"] and hashes.files == []
    assert snapshot(cache) == before


def test_without_writing_a_file_with_a_new_identity_is_hashed_and_nothing_recorded(cache, monkeypatch):
    weights = only_entry(cache) / "weights.bin"
    os.utime(weights, ns=(0, 10**18))
    monkeypatch.setattr(file_identity, "SETTLE_NS", 0)
    before = snapshot(cache)
    spy, hashes = LoadSpy(monkeypatch, SOURCE), HashSpy(monkeypatch)
    embed(cache_dir=str(cache), write=False)
    assert spy.kinds == ["cache"] and hashes.names(weights) == ["weights.bin"]
    assert snapshot(cache) == before


@pytest.mark.parametrize("exists", [False, True])
def test_without_writing_and_without_an_entry_the_plain_load_runs_and_nothing_is_written(
        tmp_path, monkeypatch, reference, builds, exists):
    cache_dir = tmp_path / "cache"
    if exists:
        (cache_dir / CACHE_SUBDIR).mkdir(mode=0o700, parents=True)
        os.chmod(cache_dir, 0o700)
        before = snapshot(cache_dir)
    spy = LoadSpy(monkeypatch, SOURCE)
    assert_same_vectors(embed(cache_dir=str(cache_dir), write=False), reference)
    assert spy.kinds == ["plain"] and builds == []
    if exists:
        assert snapshot(cache_dir) == before
    else:
        assert not cache_dir.exists()


@pytest.mark.parametrize("how", ["flip a weight byte", "flip a weight byte and restore its mtime",
                                 "garble the manifest", "build it with another onnxruntime",
                                 "make the weights readable by others"])
def test_without_writing_a_damaged_or_stale_entry_is_not_used_rebuilt_or_moved(cache, monkeypatch, reference,
                                                                                builds, how):
    damage(only_entry(cache), how)
    before = snapshot(cache)
    spy = LoadSpy(monkeypatch, SOURCE)
    assert_same_vectors(embed(cache_dir=str(cache), write=False), reference)
    assert spy.kinds == ["plain"] and builds == []
    assert snapshot(cache) == before


def test_without_writing_a_loose_cache_subdirectory_is_not_used_or_tightened(cache, monkeypatch):
    os.chmod(cache / CACHE_SUBDIR, 0o755)
    before = snapshot(cache)
    spy = LoadSpy(monkeypatch, SOURCE)
    embed(cache_dir=str(cache), write=False)
    assert spy.kinds == ["plain"] and mode(cache / CACHE_SUBDIR) == 0o755
    assert snapshot(cache) == before
