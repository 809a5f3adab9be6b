"""An entry that is damaged, stale, loose, swapped after its check or reached through a symlink is never used:
the model is loaded from its source and the entry is moved aside for a rebuild."""

from __future__ import annotations

import os
import shutil

import onnxruntime
import pytest

from memory_adapters.embedders.onnx_model_cache import CACHE_SUBDIR
from tests.adapters.local_model_cache._helpers import (
    DAMAGES, FILES, SOURCE, HashSpy, LoadSpy, assert_same_vectors, damage, embed, entries, identity, mode,
    no_leftovers, only_entry, read_manifest, sha256,
)

@pytest.mark.parametrize("how", DAMAGES)
def test_a_damaged_entry_is_never_used_and_is_moved_aside_for_a_rebuild(cache, monkeypatch, reference, builds,
                                                                         how):
    damage(only_entry(cache), how)
    spy = LoadSpy(monkeypatch, SOURCE)
    assert_same_vectors(embed(cache_dir=str(cache)), reference)
    assert spy.kinds == ["plain"] and builds == [str(SOURCE)]
    assert entries(cache) == [] and no_leftovers(cache)


def test_a_damaged_entry_is_rebuilt_and_the_rebuilt_one_is_trusted(cache, monkeypatch, reference):
    damage(only_entry(cache), "flip a weight byte and restore its mtime")
    spy = LoadSpy(monkeypatch, SOURCE)
    assert_same_vectors(embed(cache_dir=str(cache)), reference)
    assert spy.kinds == ["build"]
    rebuilt = only_entry(cache)
    content = read_manifest(rebuilt)
    for name in FILES:
        assert content["files"][name]["sha256"] == sha256(rebuilt / name)
        assert mode(rebuilt / name) == 0o600
    assert content["onnxruntime"] == onnxruntime.__version__ and no_leftovers(cache)
    spy.kinds.clear()
    hashes = HashSpy(monkeypatch)
    embed(cache_dir=str(cache))
    assert spy.kinds == ["cache"] and hashes.files == []


def test_a_file_swapped_between_its_check_and_the_load_is_not_used(cache, tmp_path, monkeypatch, builds):
    graph = only_entry(cache) / "model.onnx"

    def swap():  # genuine bytes, but not the file that was verified
        shutil.copy2(graph, tmp_path / "swap.onnx")
        os.replace(tmp_path / "swap.onnx", graph)

    spy = LoadSpy(monkeypatch, SOURCE, before_cache_load=swap)
    embed(cache_dir=str(cache))
    assert spy.kinds == ["cache", "plain"] and builds == [str(SOURCE)] and entries(cache) == []


def test_a_loose_cache_subdirectory_is_tightened(cache, monkeypatch):
    os.chmod(cache / CACHE_SUBDIR, 0o755)
    spy = LoadSpy(monkeypatch, SOURCE)
    embed(cache_dir=str(cache))
    assert spy.kinds == ["cache"] and mode(cache / CACHE_SUBDIR) == 0o700


def test_a_symlinked_weights_file_is_not_followed_even_to_genuine_bytes(cache, tmp_path, monkeypatch, builds):
    entry = only_entry(cache)
    outside = tmp_path / "outside.bin"
    os.rename(entry / "weights.bin", outside)
    outside_identity = identity(outside)
    (entry / "weights.bin").symlink_to(outside)
    spy, hashes = LoadSpy(monkeypatch, SOURCE), HashSpy(monkeypatch)
    embed(cache_dir=str(cache))
    assert spy.kinds == ["plain"] and builds == [str(SOURCE)] and entries(cache) == []
    assert hashes.names(outside) == []
    assert identity(outside) == outside_identity, "the symlink's target is left alone"


def test_a_symlinked_entry_directory_is_not_followed(cache, tmp_path, monkeypatch, builds):
    entry = only_entry(cache)
    outside = tmp_path / "outside-entry"
    shutil.move(str(entry), outside)
    entry.symlink_to(outside, target_is_directory=True)
    spy = LoadSpy(monkeypatch, SOURCE)
    embed(cache_dir=str(cache))
    assert spy.kinds == ["plain"] and builds == [str(SOURCE)]
    assert entries(cache) == [] and (outside / "weights.bin").is_file()


def test_a_symlinked_cache_subdirectory_is_not_used_or_written(tmp_path, monkeypatch, reference):
    cache_dir, elsewhere = tmp_path / "cache", tmp_path / "elsewhere"
    cache_dir.mkdir(mode=0o700)
    elsewhere.mkdir(mode=0o700)
    (cache_dir / CACHE_SUBDIR).symlink_to(elsewhere, target_is_directory=True)
    spy = LoadSpy(monkeypatch, SOURCE)
    assert_same_vectors(embed(cache_dir=str(cache_dir)), reference)
    assert spy.kinds == ["plain"] and not list(elsewhere.iterdir())


def test_a_cache_dir_that_cannot_be_used_falls_back_to_the_plain_load(tmp_path, monkeypatch, reference):
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    spy = LoadSpy(monkeypatch, SOURCE)
    assert_same_vectors(embed(cache_dir=str(not_a_dir)), reference)
    assert spy.kinds == ["plain"]
