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

# The optimised-model cache (see OptimisedModelCache). Bump _CACHE_FORMAT when the layout changes.
CACHE_SUBDIR = "onnx-optimised"
_CACHE_FORMAT = 2
_GRAPH, _WEIGHTS, _MANIFEST = "model.onnx", "weights.bin", "manifest.json"
_MANIFEST_LIMIT = 64 * 1024
_STALE_SECONDS = 3600
_CHUNK = 1 << 20
# A file changed again within its file system's timestamp granularity can keep the same identity (see
# _stat_identity), so an identity is recorded only when the file's last change is this much older than the
# hash that verified it ("racily clean" in git's terms); otherwise the file is hashed again next time.
_SETTLE_NS = 2_000_000_000


class _CacheInvalid(Exception):
    """A cache entry (or directory) that must not be used."""


def _cache_supported() -> bool:
    """True where files can be opened without following symlinks, relative to a directory descriptor."""
    return (hasattr(os, "O_NOFOLLOW") and hasattr(os, "O_DIRECTORY") and hasattr(os, "geteuid")
            and os.open in os.supports_dir_fd and os.stat in os.supports_dir_fd and os.listdir in os.supports_fd)


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


def _stat_identity(info: os.stat_result) -> list[int]:
    """A file's identity: recorded with the hash it had when verified, and required unchanged to trust that hash.

    Every change to a file (write, truncate, chmod, chown, utime, link, rename) sets its ctime to the current
    time, and no unprivileged call can set ctime back (os.utime sets only atime and mtime). So an unchanged
    identity means the file was not modified since it was hashed, even by a process of this user that
    restored its mtime afterwards. Only a change that bypasses the file system's metadata (silent bit rot,
    raw writes to the block device, root turning the clock back) goes unnoticed, which is acceptable for a
    private 0700 cache. A list, so that it compares equal to its JSON form.
    """
    return [info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]


def _hash_unchanged(fd: int, opened: os.stat_result) -> tuple[str, list[int], bool]:
    """(sha256, identity, settled) of a file open as `fd` whose fstat when opened was `opened`.

    Raises when the file changes while it is read. `settled` is False when its last change is too recent
    (_SETTLE_NS) for the identity to vouch for this hash later; such an identity must not be recorded.
    """
    started = time.time_ns()
    digest = _sha256_fd(fd)
    identity = _stat_identity(opened)
    if _stat_identity(os.fstat(fd)) != identity:
        raise _CacheInvalid("file changed while it was hashed")
    return digest, identity, started - max(opened.st_mtime_ns, opened.st_ctime_ns) >= _SETTLE_NS


def _manifest_checksum(manifest: dict[str, Any]) -> str:
    """sha256 of a manifest's canonical JSON (without its checksum), so an edited or damaged one is noticed."""
    return hashlib.sha256(json.dumps(manifest, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


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
    cache saves, so the manifest also records each file's stat identity (_stat_identity) as it was when
    its hash was verified, and the source's: a file whose identity is unchanged is trusted without reading
    it, any other is hashed again (and its new identity recorded, by an atomic rename of the manifest, when
    `write` and the file has settled).
    """

    def __init__(self, cache_dir: Path, source: Path, write: bool = True) -> None:
        if not _cache_supported():
            raise _CacheInvalid("this platform cannot open files safely relative to a directory")
        self._cache_dir = cache_dir
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
                raise _CacheInvalid("the source is not a regular file")
            root_fd = self._open_root()
            if root_fd is None:
                return None
            try:
                names = [name for name in os.listdir(root_fd) if not name.startswith(".")]
                if not names and not self._write:
                    return None
                known = self._find_by_source(root_fd, names, _stat_identity(source_info), version)
                source_identity = None
                if known is not None:
                    name, source_sha = known
                else:
                    source_sha, identity, settled = _hash_unchanged(source_fd, source_info)
                    name = self._entry_name(source_sha, version)
                    source_identity = identity if settled else None
                try:
                    session = self._load_entry(root_fd, name, source_sha, source_identity, onnxruntime, options)
                except Exception:  # noqa: BLE001 - anything unverifiable is discarded, never trusted
                    if not self._write:
                        return None
                    self._remove(root_fd, name, aside=True)
                    session = None
                if session is not None or not self._write:
                    return session
                return self._build(root_fd, source_fd, onnxruntime, options)
            finally:
                os.close(root_fd)
        finally:
            os.close(source_fd)

    def _open_root(self) -> Optional[int]:
        """A descriptor on `<cache_dir>/onnx-optimised`, created when `write`; None when absent and not `write`."""
        if self._write:
            os.makedirs(self._cache_dir, mode=0o700, exist_ok=True)
        try:
            top_fd = os.open(self._cache_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            try:
                return _open_private_dir(CACHE_SUBDIR, top_fd, create=self._write)
            finally:
                os.close(top_fd)
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
                entry_fd = _open_private_dir(name, root_fd, create=False)
                try:
                    manifest = self._read_manifest(entry_fd)
                finally:
                    os.close(entry_fd)
            except (OSError, ValueError, _CacheInvalid):
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
            entry_fd = _open_private_dir(name, root_fd, create=False)
        except FileNotFoundError:
            return None
        try:
            manifest = self._read_manifest(entry_fd)
            expected = self._key(source_sha, onnxruntime.__version__)
            if any(manifest.get(key) != value for key, value in expected.items()):
                raise _CacheInvalid("entry was built from another model or onnxruntime")
            verified, learned = {}, {}
            for file_name in (_GRAPH, _WEIGHTS):
                fd, info = _open_private_file(file_name, entry_fd)
                try:
                    want = manifest["files"][file_name]
                    identity = _stat_identity(info)
                    if info.st_size != want["size"]:
                        raise _CacheInvalid(f"{file_name} does not match its manifest")
                    if identity != want.get("identity"):
                        digest, identity, settled = _hash_unchanged(fd, info)
                        if digest != want["sha256"]:
                            raise _CacheInvalid(f"{file_name} does not match its manifest")
                        if settled:
                            learned[file_name] = identity
                    verified[file_name] = identity
                finally:
                    os.close(fd)
            session = onnxruntime.InferenceSession(
                _fd_path(entry_fd, _GRAPH, self._root / name), options("ORT_DISABLE_ALL"),
                providers=["CPUExecutionProvider"])
            # What onnxruntime opened by name must be what was verified (not swapped in between).
            for file_name, identity in verified.items():
                if _stat_identity(os.stat(file_name, dir_fd=entry_fd, follow_symlinks=False)) != identity:
                    raise _CacheInvalid(f"{file_name} changed while it was loaded")
            if self._write and (learned or source_identity):
                for file_name, identity in learned.items():
                    manifest["files"][file_name]["identity"] = identity
                if source_identity:
                    manifest["source_identity"] = source_identity
                self._replace_manifest(entry_fd, manifest)
            return session
        finally:
            os.close(entry_fd)

    @staticmethod
    def _read_manifest(entry_fd: int, check: bool = True) -> dict[str, Any]:
        """The entry's manifest (small, private, regular), without its checksum, which `check` verifies."""
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
        if check and manifest.pop("checksum", None) != _manifest_checksum(manifest):
            raise _CacheInvalid("manifest does not match its checksum")
        return manifest

    @staticmethod
    def _write_manifest(dir_fd: int, file_name: str, manifest: dict[str, Any]) -> None:
        """Write `manifest` with its checksum to a new private file (exclusively, no follow)."""
        content = {**manifest, "checksum": _manifest_checksum(manifest)}
        fd = os.open(file_name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                     dir_fd=dir_fd)
        with open(fd, "w", encoding="utf-8") as stream:
            json.dump(content, stream, sort_keys=True)

    def _replace_manifest(self, entry_fd: int, manifest: dict[str, Any]) -> None:
        """Atomically replace a published entry's manifest (a new private file renamed over it).

        Readers see the old or the new manifest, never a partial one; concurrent writers write the same
        hashes. A failure only means the identities are learned again next time.
        """
        temp = f".manifest-{os.urandom(8).hex()}"
        try:
            self._write_manifest(entry_fd, temp, manifest)
            os.rename(temp, _MANIFEST, src_dir_fd=entry_fd, dst_dir_fd=entry_fd)
        except OSError:
            try:
                os.unlink(temp, dir_fd=entry_fd)
            except OSError:
                pass

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
        if b"location" in data or _stat_identity(os.fstat(source_fd)) != _stat_identity(opened):
            return None
        settled = started - max(opened.st_mtime_ns, opened.st_ctime_ns) >= _SETTLE_NS
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
                    self._seal(temp_fd, source_sha, _stat_identity(opened) if settled else None,
                               onnxruntime.__version__)
                    os.rename(temp, name, src_dir_fd=root_fd, dst_dir_fd=root_fd)
                except Exception:  # noqa: BLE001 - a concurrent build won the rename, or the entry could
                    return session  # not be written: either way this session is good
            finally:
                os.close(temp_fd)
        finally:
            self._remove(root_fd, temp)
        self._prune(root_fd, keep=name)
        return session

    def _seal(self, temp_fd: int, source_sha: str, source_identity: Optional[list[int]], ort_version: str) -> None:
        """Make the written files private, hash them and write the manifest.

        The files' identities are recorded although they were just written: onnxruntime, in this process,
        has finished writing them, and nothing else knows this temporary directory, so no change can hide
        within the timestamp granularity (the _SETTLE_NS rule is for files found already in place).
        """
        files = {}
        for file_name in (_GRAPH, _WEIGHTS):
            fd = os.open(file_name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=temp_fd)
            try:
                info = os.fstat(fd)
                if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid():
                    raise _CacheInvalid(f"{file_name} was not written as a regular file")
                os.fchmod(fd, 0o600)
                info = os.fstat(fd)  # the chmod changed the ctime
                digest, identity, _ = _hash_unchanged(fd, info)
                files[file_name] = {"size": info.st_size, "sha256": digest, "identity": identity}
            finally:
                os.close(fd)
        manifest = {**self._key(source_sha, ort_version), "source_path": str(self._source),
                    "source_identity": source_identity, "files": files}
        self._write_manifest(temp_fd, _MANIFEST, manifest)

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
                        self._remove(root_fd, name)
                    continue
                entry_fd = _open_private_dir(name, root_fd, create=False)
                try:
                    source_path = self._read_manifest(entry_fd, check=False).get("source_path")
                finally:
                    os.close(entry_fd)
                if source_path == str(self._source):
                    self._remove(root_fd, name, aside=True)
            except (OSError, ValueError, _CacheInvalid):
                continue
