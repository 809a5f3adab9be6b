"""Reading files a project or user controls: regular files only, size-capped, never waiting on a FIFO.

A config or spec that is a FIFO would block `open()` for ever; one that is a link to `/dev/zero` would read
until memory runs out. Both are refused with an OSError, which every caller already treats as "unreadable".
"""

from __future__ import annotations

import errno
import os
import stat

SMALL_FILE_LIMIT = 1 << 20  # configs, specs, feature metadata
BANK_FILE_LIMIT = 32 << 20  # one knowledge-bank category file


def read_regular_text(path: str, limit: int = SMALL_FILE_LIMIT, follow_links: bool = True) -> str:
    """The text of a regular file of at most `limit` bytes (UTF-8, bad bytes replaced); OSError otherwise."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)  # a FIFO opens without waiting
    fd = os.open(path, flags if follow_links else flags | os.O_NOFOLLOW)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
        if info.st_size > limit:
            raise OSError(errno.EFBIG, f"larger than {limit // (1 << 20)} MiB", path)
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:  # grew while being read
            raise OSError(errno.EFBIG, f"larger than {limit // (1 << 20)} MiB", path)
    finally:
        os.close(fd)
    return b"".join(chunks).decode("utf-8", "replace")
