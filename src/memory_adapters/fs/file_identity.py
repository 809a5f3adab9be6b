"""Whether a file is still the one that was hashed: its sha256 and its stat identity, recorded together."""

from __future__ import annotations

import hashlib
import os
import time

from memory_adapters.fs.private_files import CacheInvalid

CHUNK = 1 << 20
# A file changed again within its file system's timestamp granularity can keep the same identity (see
# stat_identity), so an identity is recorded only when the file's last change is this much older than the
# hash that verified it ("racily clean" in git's terms); otherwise the file is hashed again next time.
SETTLE_NS = 2_000_000_000


def sha256_fd(fd: int) -> str:
    """sha256 of a whole open file, read in chunks (the weights are ~90 MB)."""
    digest = hashlib.sha256()
    buffer = bytearray(CHUNK)
    view = memoryview(buffer)
    os.lseek(fd, 0, os.SEEK_SET)
    with open(fd, "rb", buffering=0, closefd=False) as stream:
        while count := stream.readinto(buffer):
            digest.update(view[:count])
    return digest.hexdigest()


def stat_identity(info: os.stat_result) -> list[int]:
    """A file's identity: recorded with the hash it had when verified, and required unchanged to trust that hash.

    Every change to a file (write, truncate, chmod, chown, utime, link, rename) sets its ctime to the current
    time, and no unprivileged call can set ctime back (os.utime sets only atime and mtime). So an unchanged
    identity means the file was not modified since it was hashed, even by a process of this user that
    restored its mtime afterwards. Only a change that bypasses the file system's metadata (silent bit rot,
    raw writes to the block device, root turning the clock back) goes unnoticed, which is acceptable for a
    private 0700 cache. A list, so that it compares equal to its JSON form.
    """
    return [info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]


def has_settled(opened: os.stat_result, started_ns: int) -> bool:
    """Whether a file's last change (as of `opened`) is old enough, at `started_ns`, for its identity to vouch
    later for what was read from then on (SETTLE_NS)."""
    return started_ns - max(opened.st_mtime_ns, opened.st_ctime_ns) >= SETTLE_NS


def hash_unchanged(fd: int, opened: os.stat_result) -> tuple[str, list[int], bool]:
    """(sha256, identity, settled) of a file open as `fd` whose fstat when opened was `opened`.

    Raises CacheInvalid when the file changes while it is read. `settled` is False when its last change is too
    recent (SETTLE_NS) for the identity to vouch for this hash later; such an identity must not be recorded.
    """
    started = time.time_ns()
    digest = sha256_fd(fd)
    identity = stat_identity(opened)
    if stat_identity(os.fstat(fd)) != identity:
        raise CacheInvalid("file changed while it was hashed")
    return digest, identity, has_settled(opened, started)
