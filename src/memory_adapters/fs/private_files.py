"""Files a cache can trust: opened relative to a directory descriptor, never through a symlink, owned by this user
and private to it (directories 0700, files 0600)."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Optional


class CacheInvalid(Exception):
    """A cache entry (or directory) that must not be used."""


def descriptors_supported() -> bool:
    """True where files can be opened without following symlinks, relative to a directory descriptor."""
    return (hasattr(os, "O_NOFOLLOW") and hasattr(os, "O_DIRECTORY") and hasattr(os, "geteuid")
            and os.open in os.supports_dir_fd and os.stat in os.supports_dir_fd and os.listdir in os.supports_fd)


def fd_path(dir_fd: int, name: str, fallback: Path) -> str:
    """A path to `name` inside the directory open as `dir_fd`, pinned through /proc where it exists."""
    pinned = f"/proc/self/fd/{dir_fd}"
    return f"{pinned}/{name}" if os.path.isdir(pinned) else str(fallback / name)


def open_private_dir(name: str, dir_fd: Optional[int], create: bool) -> int:
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
            raise CacheInvalid(f"{name} is not owned by this user")
        if stat.S_IMODE(info.st_mode) & 0o077:
            if not create:
                raise CacheInvalid(f"{name} is readable by others")
            os.fchmod(fd, 0o700)
        return fd
    except BaseException:
        os.close(fd)
        raise


def open_private_file(name: str, dir_fd: int) -> tuple[int, os.stat_result]:
    """A no-follow read descriptor on a regular file owned by this user with no group/other access."""
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    info = os.fstat(fd)
    if (not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid()
            or stat.S_IMODE(info.st_mode) & 0o077):
        os.close(fd)
        raise CacheInvalid(f"{name} is not a private regular file")
    return fd, info


def remove_quietly(root_fd: int, name: str, root: Path, aside: bool = False) -> None:
    """Delete `name` under the directory open as `root_fd` (whose path is `root`) without following symlinks,
    first renamed aside when `aside`; a failure leaves it where it is."""
    try:
        if aside:
            trash = f".trash-{os.urandom(8).hex()}"
            os.rename(name, trash, src_dir_fd=root_fd, dst_dir_fd=root_fd)
            name = trash
        info = os.stat(name, dir_fd=root_fd, follow_symlinks=False)
        if stat.S_ISDIR(info.st_mode):
            import shutil  # only on this rare path: it costs ~2 ms to import

            shutil.rmtree(fd_path(root_fd, name, root))
        else:
            os.unlink(name, dir_fd=root_fd)
    except OSError:
        pass
