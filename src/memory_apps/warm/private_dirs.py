"""The warm process's directories and log, made private without following links (server and launcher side)."""

from __future__ import annotations

import errno
import os
import stat
from typing import Optional

from memory_adapters.fs.private_files import CacheInvalid, open_private_dir
from memory_apps.warm.paths import warm_dir

LOG_NAME = "server.log"
LOG_LIMIT = 256 << 10  # a log past this is started over: it holds the last server's tracebacks, not history
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class UnsafeWarmDir(OSError):
    """A directory the warm process refuses: a link, not a directory, or owned by someone else."""


def ensure_private_dir(directory: str) -> None:
    """Create `directory` 0700 (its parent must exist) or check an existing one: a real directory, not a link,
    owned by this user; group/other access is removed. UnsafeWarmDir otherwise."""
    parent, name = os.path.split(os.path.abspath(directory))
    try:
        parent_fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)  # the parent may be a user's link
    except OSError as exc:
        raise UnsafeWarmDir(exc.errno, f"cannot open its parent: {exc.strerror}", directory) from exc
    try:
        os.close(open_private_dir(name, parent_fd, create=True))
    except CacheInvalid as exc:
        raise UnsafeWarmDir(errno.EPERM, str(exc), directory) from exc
    except OSError as exc:  # ELOOP or ENOTDIR: a link or a file where the directory should be
        raise UnsafeWarmDir(exc.errno, "is not a private directory of this user (a link is never followed)",
                            directory) from exc
    finally:
        os.close(parent_fd)


def open_log(store_dir: str) -> Optional[int]:
    """An append descriptor on `<store>/warm/server.log` (private, no link followed), or None."""
    path = os.path.join(warm_dir(store_dir), LOG_NAME)
    try:
        ensure_private_dir(warm_dir(store_dir))
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC,
                     0o600)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid():
            os.close(fd)
            return None
        if info.st_size > LOG_LIMIT:
            os.ftruncate(fd, 0)
        os.fchmod(fd, 0o600)
    except OSError:
        os.close(fd)
        return None
    return fd

