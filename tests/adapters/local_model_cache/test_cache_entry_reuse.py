"""A built entry is private and verified by sha256, and a later load trusts it without reading it again: a file
is hashed again only when its stat identity (device, inode, size, mtime, ctime) differs from the one recorded when
its hash was verified; any write changes the ctime, which a user cannot set back.

These tests run the real bundled model (skipped when the `local` extra is absent). They check what is loaded,
what is hashed and what is on disk, never how long it takes."""

from __future__ import annotations

import os
import shutil

import onnxruntime

from memory_adapters.fs import file_identity
from memory_adapters.embedders.onnx_model_cache import CACHE_SUBDIR
from tests.adapters.local_model_cache._helpers import (
    FILES, LOCATION_FIELD, SOURCE, UNKNOWN_FIELD, HashSpy, LoadSpy, assert_same_vectors, embed, entries, identity,
    mode, no_leftovers, only_entry, read_manifest, sha256, snapshot, write_manifest,
)

def test_first_use_writes_a_private_entry_that_the_next_load_trusts_unread(first_use, monkeypatch, reference):
    cache_dir, kinds, vectors = first_use
    assert_same_vectors(vectors, reference)
    assert kinds == ["build"]
    entry = only_entry(cache_dir)
    assert mode(cache_dir) == 0o700 and mode(cache_dir / CACHE_SUBDIR) == 0o700 and mode(entry) == 0o700
    assert sorted(p.name for p in entry.iterdir()) == ["manifest.json", "model.onnx", "weights.bin"]
    assert all(mode(p) == 0o600 for p in entry.iterdir())
    manifest = read_manifest(entry)
    assert manifest["source_sha256"] == sha256(SOURCE)
    assert manifest["source_identity"] == identity(SOURCE), "the installed model has long settled"
    assert manifest["onnxruntime"] == onnxruntime.__version__
    for name in FILES:
        assert manifest["files"][name] == {"size": (entry / name).stat().st_size, "sha256": sha256(entry / name),
                                           "identity": identity(entry / name)}
    assert no_leftovers(cache_dir), "no temporary directory is left behind"

    spy, hashes = LoadSpy(monkeypatch, SOURCE), HashSpy(monkeypatch)
    before = snapshot(cache_dir)
    assert_same_vectors(embed(cache_dir=str(cache_dir)), reference)
    assert spy.kinds == ["cache"] and hashes.files == [], "neither the source nor the entry is read to hash it"
    assert snapshot(cache_dir) == before


def test_a_later_load_uses_the_entry_without_rehashing_and_embeds_the_same(cache, monkeypatch, reference):
    before = snapshot(cache)
    spy, hashes = LoadSpy(monkeypatch, SOURCE), HashSpy(monkeypatch)
    assert_same_vectors(embed(cache_dir=str(cache)), reference)
    assert spy.kinds == ["cache"] and hashes.files == []
    assert snapshot(cache) == before


def test_a_file_with_a_new_identity_is_hashed_and_its_identity_recorded_once_settled(cache, monkeypatch):
    entry = only_entry(cache)
    weights, graph = entry / "weights.bin", entry / "model.onnx"
    os.utime(weights, ns=(0, 10**18))  # same bytes, another mtime (and ctime)
    spy, hashes = LoadSpy(monkeypatch, SOURCE), HashSpy(monkeypatch)
    manifest = read_manifest(entry)
    embed(cache_dir=str(cache))
    assert spy.kinds == ["cache"] and hashes.names(weights, graph) == ["weights.bin"]
    assert read_manifest(entry) == manifest, "a file changed less than SETTLE_NS ago is not vouched for"

    monkeypatch.setattr(file_identity, "SETTLE_NS", 0)
    spy.kinds.clear()
    hashes.files.clear()
    embed(cache_dir=str(cache))
    assert spy.kinds == ["cache"] and hashes.names(weights, graph) == ["weights.bin"]
    assert read_manifest(entry)["files"]["weights.bin"]["identity"] == identity(weights)
    assert sorted(p.name for p in entry.iterdir()) == ["manifest.json", "model.onnx", "weights.bin"]
    assert mode(entry / "manifest.json") == 0o600

    spy.kinds.clear()
    hashes.files.clear()
    embed(cache_dir=str(cache))
    assert spy.kinds == ["cache"] and hashes.files == []


def test_a_source_with_a_new_identity_is_hashed_and_finds_its_entry(cache, tmp_path, monkeypatch):
    model_dir = tmp_path / "model"
    model_dir.mkdir()
    shutil.copyfile(SOURCE, model_dir / "model.onnx")  # same bytes, another file
    monkeypatch.setattr(file_identity, "SETTLE_NS", 0)
    spy, hashes = LoadSpy(monkeypatch, model_dir / "model.onnx"), HashSpy(monkeypatch)
    embed(cache_dir=str(cache), model_dir=str(model_dir))
    assert spy.kinds == ["cache"] and hashes.names(model_dir / "model.onnx") == ["model.onnx"]
    assert read_manifest(only_entry(cache))["source_identity"] == identity(model_dir / "model.onnx")

    spy.kinds.clear()
    hashes.files.clear()
    embed(cache_dir=str(cache), model_dir=str(model_dir))
    assert spy.kinds == ["cache"] and hashes.files == []


def test_without_cache_dir_nothing_changes(tmp_path, monkeypatch, reference):
    spy = LoadSpy(monkeypatch, SOURCE)
    monkeypatch.chdir(tmp_path)
    assert_same_vectors(embed(), reference)
    assert spy.kinds == ["plain"] and not list(tmp_path.iterdir())


def test_a_changed_source_gets_a_new_entry_and_the_old_one_is_dropped(built, tmp_path, monkeypatch):
    model_dir, cache_dir = tmp_path / "model", tmp_path / "cache"
    model_dir.mkdir()
    shutil.copyfile(SOURCE, model_dir / "model.onnx")
    shutil.copytree(built, cache_dir, symlinks=True)
    first = only_entry(cache_dir)
    write_manifest(first, {**read_manifest(first), "source_path": str(model_dir / "model.onnx")})
    with open(model_dir / "model.onnx", "ab") as stream:
        stream.write(UNKNOWN_FIELD)
    spy = LoadSpy(monkeypatch, model_dir / "model.onnx")
    embed(cache_dir=str(cache_dir), model_dir=str(model_dir))
    assert spy.kinds == ["build"]
    second = only_entry(cache_dir)
    assert second.name != first.name
    assert read_manifest(second)["source_sha256"] == sha256(model_dir / "model.onnx")


def test_a_source_that_may_reference_external_data_is_not_cached(tmp_path, monkeypatch, reference):
    model_dir, cache_dir = tmp_path / "model", tmp_path / "cache"
    model_dir.mkdir()
    (model_dir / "model.onnx").write_bytes(SOURCE.read_bytes() + LOCATION_FIELD)
    spy = LoadSpy(monkeypatch, model_dir / "model.onnx")
    assert_same_vectors(embed(cache_dir=str(cache_dir), model_dir=str(model_dir)), reference)
    assert spy.kinds == ["plain"] and entries(cache_dir) == []
