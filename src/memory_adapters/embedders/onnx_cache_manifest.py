"""The manifest of an optimised-model cache entry: what it was built from, the sha256, size and stat identity of
its files, and a checksum of itself, so an edited or damaged manifest is noticed."""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

from memory_adapters.fs.private_files import CacheInvalid, open_private_file

MANIFEST = "manifest.json"
MANIFEST_LIMIT = 64 * 1024


def manifest_checksum(manifest: dict[str, Any]) -> str:
    """sha256 of a manifest's canonical JSON (without its checksum)."""
    return hashlib.sha256(json.dumps(manifest, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def read_manifest(entry_fd: int, check: bool = True) -> dict[str, Any]:
    """The entry's manifest (small, private, regular), without its checksum, which `check` verifies."""
    fd, info = open_private_file(MANIFEST, entry_fd)
    try:
        if info.st_size > MANIFEST_LIMIT:
            raise CacheInvalid("manifest too large")
        with open(fd, "rb", closefd=False) as stream:
            manifest = json.loads(stream.read(MANIFEST_LIMIT))
    finally:
        os.close(fd)
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        raise CacheInvalid("manifest is malformed")
    if check and manifest.pop("checksum", None) != manifest_checksum(manifest):
        raise CacheInvalid("manifest does not match its checksum")
    return manifest


def write_manifest(dir_fd: int, file_name: str, manifest: dict[str, Any]) -> None:
    """Write `manifest` with its checksum to a new private file (exclusively, no follow)."""
    content = {**manifest, "checksum": manifest_checksum(manifest)}
    fd = os.open(file_name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                 dir_fd=dir_fd)
    with open(fd, "w", encoding="utf-8") as stream:
        json.dump(content, stream, sort_keys=True)


def replace_manifest(entry_fd: int, manifest: dict[str, Any]) -> None:
    """Atomically replace a published entry's manifest (a new private file renamed over it).

    Readers see the old or the new manifest, never a partial one; concurrent writers write the same
    hashes. A failure only means the identities are learned again next time.
    """
    temp = f".manifest-{os.urandom(8).hex()}"
    try:
        write_manifest(entry_fd, temp, manifest)
        os.rename(temp, MANIFEST, src_dir_fd=entry_fd, dst_dir_fd=entry_fd)
    except OSError:
        try:
            os.unlink(temp, dir_fd=entry_fd)
        except OSError:
            pass
