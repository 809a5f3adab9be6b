"""Reading and writing files without following symbolic links.

A project is untrusted input: its `docs/knowledge-bank/patterns.md` or `.mcp.json` may be a link to
`~/.ssh/id_rsa`. Reading through the link would copy the key into whatever is written next; writing through
it would overwrite the key. So every file the product rewrites is read with `O_NOFOLLOW`, refused when it is
a link or not a regular file, and replaced by renaming a temp file created with `O_EXCL | O_NOFOLLOW` beside
it. Only the last path component is checked: a linked directory (a dotfiles repo holding `~/.claude`) is the
user's own choice and keeps working.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from typing import Any, BinaryIO, Iterator, Optional

from memory_adapters.fs.regular_files import BANK_FILE_LIMIT, read_regular_text
from memory_adapters.fs.temp_files import remove_abandoned_temps, temp_path, unlink_quietly

PRIVATE = 0o600
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_LINK_ERRNOS = {errno.ELOOP, getattr(errno, "EMLINK", errno.ELOOP), getattr(errno, "EFTYPE", errno.ELOOP)}


class UnsafeFile(OSError):
    """A path iflow-memory refuses to read or write: a symbolic link, or not a regular file."""

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def _refused(path: str, kind: str) -> UnsafeFile:
    return UnsafeFile(errno.ELOOP if kind == "link" else errno.EINVAL,
                      "is a symbolic link; iflow-memory never reads or writes through one" if kind == "link"
                      else "is not a regular file; left alone", path)


def existing_regular(path: str) -> Optional[os.stat_result]:
    """The lstat of `path` when it is a regular file, None when it does not exist; UnsafeFile otherwise."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        raise _refused(path, "link")
    if not stat.S_ISREG(info.st_mode):
        raise _refused(path, "other")
    return info


def read_text_no_follow(path: str, limit: int = BANK_FILE_LIMIT) -> str:
    """The text of a regular file that is not a symbolic link (size-capped); UnsafeFile or OSError otherwise."""
    if existing_regular(path) is None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
    try:
        return read_regular_text(path, limit, follow_links=False)  # O_NOFOLLOW: swapped for a link meanwhile
    except OSError as exc:
        if exc.errno in _LINK_ERRNOS:
            raise _refused(path, "link") from exc
        raise


def _create_temp(target: str) -> tuple[str, int]:
    """This writer's temp file beside `target`, created new (never through a link), private."""
    temp = temp_path(target)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC
    try:
        return temp, os.open(temp, flags, PRIVATE)
    except FileExistsError:  # left by this very thread after a failed unlink: it is ours to replace
        unlink_quietly(temp)
        return temp, os.open(temp, flags, PRIVATE)


def _final_mode(path: str, mode: Optional[int], refuse_links: bool) -> int:
    """`mode`, else an existing regular file's mode, else private; refuses a link first when `refuse_links`."""
    existing = existing_regular(path) if refuse_links else None
    if mode is not None:
        return mode
    if not refuse_links:
        with contextlib.suppress(FileNotFoundError):
            info = os.lstat(path)
            existing = info if stat.S_ISREG(info.st_mode) else None
    return stat.S_IMODE(existing.st_mode) if existing else PRIVATE


@contextlib.contextmanager
def replacing(path: str, mode: Optional[int] = None, *, refuse_links: bool = True, sync: bool = True,
              create_only: bool = False, legacy_pattern: Optional[str] = None) -> Iterator[BinaryIO]:
    """Yield this writer's temp file beside `path` (created new, never through a link, private; its `name` is its
    path); when the block ends it replaces `path` by a rename, and is removed if the block raises.

    The file gets `mode`, else keeps an existing file's mode, else is private (0600). `refuse_links`: a link or
    non-regular file at `path` is refused (UnsafeFile), also when it appears meanwhile; otherwise the rename
    replaces a link, never its target. `sync`: fsync before the rename. `create_only`: a file at `path` wins
    (FileExistsError) instead of being replaced. `legacy_pattern`: temp names of older versions to clean up."""
    final_mode = _final_mode(path, mode, refuse_links)
    remove_abandoned_temps(path, legacy_pattern)
    temp, fd = _create_temp(path)
    try:
        with open(temp, "wb", opener=lambda _name, _flags: fd) as out:  # the fd opened safely, named by its path
            yield out
            out.flush()
            os.fchmod(out.fileno(), final_mode)
            if sync:
                os.fsync(out.fileno())
        if refuse_links:
            existing_regular(path)  # became a link meanwhile: still refuse
        if create_only:
            os.link(temp, path)  # never replaces a file another process just created
            os.unlink(temp)
        else:
            os.replace(temp, path)  # renames over the directory entry: a link there is replaced, not followed
    except BaseException:
        unlink_quietly(temp)
        raise


def atomic_write_bytes(path: str, data: bytes, mode: Optional[int] = None, **options: Any) -> None:
    """Replace `path` by renaming a synced temp file over it (`replacing`, whose `options` it takes): refuses a
    link or non-regular target by default; the file gets `mode`, else keeps an existing file's mode, else 0600."""
    with replacing(path, mode, **options) as out:
        out.write(data)


def atomic_write_text(path: str, text: str, mode: Optional[int] = None, **options: Any) -> None:
    """`atomic_write_bytes` for UTF-8 text."""
    atomic_write_bytes(path, text.encode("utf-8"), mode, **options)


def write_private_no_follow(path: str, text: str) -> None:
    """Overwrite a small private file in place (0600), refusing a link or anything but a regular file."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC  # a FIFO fails instead of waiting
    try:
        fd = os.open(path, flags, PRIVATE)
    except OSError as exc:
        if exc.errno in _LINK_ERRNOS and os.path.islink(path):
            raise _refused(path, "link") from exc
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _refused(path, "other")
        os.ftruncate(fd, 0)  # only now: a link or device was never opened for writing, let alone truncated
        os.fchmod(fd, PRIVATE)
        data = text.encode("utf-8")
        while data:
            data = data[os.write(fd, data):]
    finally:
        os.close(fd)
