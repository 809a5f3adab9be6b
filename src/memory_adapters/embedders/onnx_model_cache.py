"""The local model's optimised copy: an fp32 graph with its weights in a memory-mapped file, kept privately
under a cache directory, verified against recorded hashes whenever a file's identity changed."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from pathlib import Path
from typing import Any, Callable, Optional

from memory_adapters.fs.file_identity import has_settled, hash_unchanged, stat_identity
from memory_adapters.embedders.onnx_cache_manifest import MANIFEST, read_manifest, replace_manifest, write_manifest
from memory_adapters.fs.private_files import (
    CacheInvalid, descriptors_supported, fd_path, open_private_dir, open_private_file, remove_quietly,
)

# The optimised-model cache (see OptimisedModelCache). Bump _CACHE_FORMAT when the layout changes.
CACHE_SUBDIR = "onnx-optimised"
_CACHE_FORMAT = 2
_GRAPH, _WEIGHTS = "model.onnx", "weights.bin"
_STALE_SECONDS = 3600


class OptimisedModelCache:
    """The onnxruntime-optimised model kept under `<cache_dir>/onnx-optimised/<key>/`, verified on every load.

    An entry holds the graph (`model.onnx`), its fp32 weights (`weights.bin`, memory-mapped by
    onnxruntime, so loading skips dequantising and copying them) and `manifest.json` with the sha256 of
    the source model, the onnxruntime version, the sha256 and size of both files and a checksum of itself.
    The key is derived from the source sha256, the onnxruntime version and the machine. Directories are
    0700 and files 0600, owned by this user, opened without following symlinks; an entry is built in a
    private temporary directory and published with one rename. An entry that does not verify is moved
    aside and rebuilt (only when `write`; otherwise it is left alone and not used).

    Hashing the source (23 MB) and the weights (90 MB) on every load would cost more than half of what the
    cache saves, so the manifest also records each file's stat identity (stat_identity) as it was when
    its hash was verified, and the source's: a file whose identity is unchanged is trusted without reading
    it, any other is hashed again (and its new identity recorded, by an atomic rename of the manifest, when
    `write` and the file has settled: see `memory_adapters.fs.file_identity`).
    """

    def __init__(self, cache_dir: Path, source: Path, write: bool = True, private_levels: int = 1) -> None:
        """`private_levels`: how many trailing directories of `cache_dir` are this program's own, each opened
        without following a link, owned by this user and 0700 (created so when `write`); the directories above
        them are the user's arrangement (`~/.cache` may be a link)."""
        if not descriptors_supported():
            raise CacheInvalid("this platform cannot open files safely relative to a directory")
        if not 1 <= private_levels < len(cache_dir.parts):
            raise CacheInvalid(f"{cache_dir} has no {private_levels} directories of its own")
        self._cache_dir = cache_dir
        self._private_levels = private_levels
        self._root = cache_dir / CACHE_SUBDIR
        self._source = source
        self._write = write

    def session(self, onnxruntime: Any, options: Callable[[Optional[str]], Any]) -> Any:
        """A session from a verified entry, building the entry (when `write`) if it is missing or invalid.

        None when the cache cannot be used here, or when it has no valid entry and may not write one.
        """
        version = onnxruntime.__version__
        source_fd = os.open(self._source, os.O_RDONLY | os.O_CLOEXEC)  # may legitimately be a symlink
        try:
            source_info = os.fstat(source_fd)
            if not stat.S_ISREG(source_info.st_mode):
                raise CacheInvalid("the source is not a regular file")
            root_fd = self._open_root()
            if root_fd is None:
                return None
            try:
                names = [name for name in os.listdir(root_fd) if not name.startswith(".")]
                if not names and not self._write:
                    return None
                known = self._find_by_source(root_fd, names, stat_identity(source_info), version)
                source_identity = None
                if known is not None:
                    name, source_sha = known
                else:
                    source_sha, identity, settled = hash_unchanged(source_fd, source_info)
                    name = self._entry_name(source_sha, version)
                    source_identity = identity if settled else None
                try:
                    session = self._load_entry(root_fd, name, source_sha, source_identity, onnxruntime, options)
                except Exception:  # noqa: BLE001 - anything unverifiable is discarded, never trusted
                    if not self._write:
                        return None
                    remove_quietly(root_fd, name, self._root, aside=True)
                    session = None
                if session is not None or not self._write:
                    return session
                return self._build(root_fd, source_fd, onnxruntime, options)
            finally:
                os.close(root_fd)
        finally:
            os.close(source_fd)

    def _open_root(self) -> Optional[int]:
        """A descriptor on `<cache_dir>/onnx-optimised`, created when `write`; None when absent and not `write`.
        Several processes may create the same directories at once: each level tolerates the others' mkdir."""
        base = Path(*self._cache_dir.parts[:-self._private_levels])
        own = (*self._cache_dir.parts[-self._private_levels:], CACHE_SUBDIR)
        if self._write:
            os.makedirs(base, mode=0o700, exist_ok=True)
        try:
            fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            for name in own:
                try:
                    inner = open_private_dir(name, fd, create=self._write)
                finally:
                    os.close(fd)
                fd = inner
            return fd
        except FileNotFoundError:
            if self._write:
                raise
            return None

    @staticmethod
    def _key(source_sha: str, ort_version: str) -> dict[str, Any]:
        """What an entry must have been built from to be usable here."""
        return {"format": _CACHE_FORMAT, "source_sha256": source_sha, "onnxruntime": ort_version,
                "machine": os.uname().machine, "optimisation": "ORT_ENABLE_EXTENDED"}

    def _entry_name(self, source_sha: str, ort_version: str) -> str:
        """The entry directory name: a digest of the key."""
        key = json.dumps(self._key(source_sha, ort_version), sort_keys=True)
        return hashlib.sha256(key.encode()).hexdigest()[:32]

    def _find_by_source(self, root_fd: int, names: list[str], source_identity: list[int],
                        ort_version: str) -> Optional[tuple[str, str]]:
        """(name, source sha256) of the entry whose manifest recorded the source's current identity, if any.

        That identity vouches for the source sha256 recorded with it, so the source need not be hashed.
        """
        for name in names:
            try:
                entry_fd = open_private_dir(name, root_fd, create=False)
                try:
                    manifest = read_manifest(entry_fd)
                finally:
                    os.close(entry_fd)
            except (OSError, ValueError, CacheInvalid):
                continue  # not an entry that can vouch for anything; _load_entry judges it if it is ours
            source_sha = manifest.get("source_sha256")
            if (manifest.get("source_identity") == source_identity and isinstance(source_sha, str)
                    and name == self._entry_name(source_sha, ort_version)):
                return name, source_sha
        return None

    def _load_entry(self, root_fd: int, name: str, source_sha: str, source_identity: Optional[list[int]],
                    onnxruntime: Any, options: Callable[[Optional[str]], Any]) -> Any:
        """A session from entry `name` after verifying all of it; None when absent, raises when invalid.

        `source_identity` is the source's identity when the source was just hashed and has settled; it is
        recorded (with any file identity learned here) when `write`.
        """
        try:
            entry_fd = open_private_dir(name, root_fd, create=False)
        except FileNotFoundError:
            return None
        try:
            manifest = read_manifest(entry_fd)
            expected = self._key(source_sha, onnxruntime.__version__)
            if any(manifest.get(key) != value for key, value in expected.items()):
                raise CacheInvalid("entry was built from another model or onnxruntime")
            verified, learned = {}, {}
            for file_name in (_GRAPH, _WEIGHTS):
                fd, info = open_private_file(file_name, entry_fd)
                try:
                    want = manifest["files"][file_name]
                    identity = stat_identity(info)
                    if info.st_size != want["size"]:
                        raise CacheInvalid(f"{file_name} does not match its manifest")
                    if identity != want.get("identity"):
                        digest, identity, settled = hash_unchanged(fd, info)
                        if digest != want["sha256"]:
                            raise CacheInvalid(f"{file_name} does not match its manifest")
                        if settled:
                            learned[file_name] = identity
                    verified[file_name] = identity
                finally:
                    os.close(fd)
            session = onnxruntime.InferenceSession(
                fd_path(entry_fd, _GRAPH, self._root / name), options("ORT_DISABLE_ALL"),
                providers=["CPUExecutionProvider"])
            # What onnxruntime opened by name must be what was verified (not swapped in between).
            for file_name, identity in verified.items():
                if stat_identity(os.stat(file_name, dir_fd=entry_fd, follow_symlinks=False)) != identity:
                    raise CacheInvalid(f"{file_name} changed while it was loaded")
            if self._write and (learned or source_identity):
                for file_name, identity in learned.items():
                    manifest["files"][file_name]["identity"] = identity
                if source_identity:
                    manifest["source_identity"] = source_identity
                replace_manifest(entry_fd, manifest)
            return session
        finally:
            os.close(entry_fd)

    def _build(self, root_fd: int, source_fd: int, onnxruntime: Any,
               options: Callable[[Optional[str]], Any]) -> Any:
        """Optimise the source once, write a new entry atomically and return the session that did it.

        A source that may reference external data files is not cached (their bytes would not be part of
        the key): every such reference carries the key "location", and a false positive only means the
        model is loaded the plain way. Neither is a source that changes while it is read.
        """
        opened = os.fstat(source_fd)
        started = time.time_ns()
        os.lseek(source_fd, 0, os.SEEK_SET)
        with open(source_fd, "rb", closefd=False) as stream:
            data = stream.read()
        if b"location" in data or stat_identity(os.fstat(source_fd)) != stat_identity(opened):
            return None
        source_settled = has_settled(opened, started)
        source_sha = hashlib.sha256(data).hexdigest()
        name = self._entry_name(source_sha, onnxruntime.__version__)
        temp = f".build-{os.urandom(8).hex()}"
        os.mkdir(temp, 0o700, dir_fd=root_fd)
        try:
            temp_fd = open_private_dir(temp, root_fd, create=False)
            try:
                build = options("ORT_ENABLE_EXTENDED")
                build.optimized_model_filepath = fd_path(temp_fd, _GRAPH, self._root / temp)
                build.add_session_config_entry("session.optimized_model_external_initializers_file_name", _WEIGHTS)
                build.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes",
                                               "1024")
                session = onnxruntime.InferenceSession(data, build, providers=["CPUExecutionProvider"])
                del data
                try:
                    self._seal(temp_fd, source_sha, stat_identity(opened) if source_settled else None,
                               onnxruntime.__version__)
                    os.rename(temp, name, src_dir_fd=root_fd, dst_dir_fd=root_fd)
                except Exception:  # noqa: BLE001 - a concurrent build won the rename, or the entry could
                    return session  # not be written: either way this session is good
            finally:
                os.close(temp_fd)
        finally:
            remove_quietly(root_fd, temp, self._root)
        self._prune(root_fd, keep=name)
        return session

    def _seal(self, temp_fd: int, source_sha: str, source_identity: Optional[list[int]], ort_version: str) -> None:
        """Make the written files private, hash them and write the manifest.

        The files' identities are recorded although they were just written: onnxruntime, in this process,
        has finished writing them, and nothing else knows this temporary directory, so no change can hide
        within the timestamp granularity (the SETTLE_NS rule is for files found already in place).
        """
        files = {}
        for file_name in (_GRAPH, _WEIGHTS):
            fd = os.open(file_name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=temp_fd)
            try:
                info = os.fstat(fd)
                if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid():
                    raise CacheInvalid(f"{file_name} was not written as a regular file")
                os.fchmod(fd, 0o600)
                info = os.fstat(fd)  # the chmod changed the ctime
                digest, identity, _ = hash_unchanged(fd, info)
                files[file_name] = {"size": info.st_size, "sha256": digest, "identity": identity}
            finally:
                os.close(fd)
        manifest = {**self._key(source_sha, ort_version), "source_path": str(self._source),
                    "source_identity": source_identity, "files": files}
        write_manifest(temp_fd, MANIFEST, manifest)

    def _prune(self, root_fd: int, keep: str) -> None:
        """Drop older entries for the same source path (of any format) and leftovers of interrupted builds."""
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
                        remove_quietly(root_fd, name, self._root)
                    continue
                entry_fd = open_private_dir(name, root_fd, create=False)
                try:
                    source_path = read_manifest(entry_fd, check=False).get("source_path")
                finally:
                    os.close(entry_fd)
                if source_path == str(self._source):
                    remove_quietly(root_fd, name, self._root, aside=True)
            except (OSError, ValueError, CacheInvalid):
                continue
