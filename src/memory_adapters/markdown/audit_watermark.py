"""The markdown audit trail's watermark: the highest outbox sequence number whose markdown was written, kept in
`<store>/.audit-watermark` beside the markdown. The database keeps the highest number it ever assigned; a file
ahead of the database means the database lost commits the markdown still holds (its `-wal` was deleted, an older
copy was put back), and the next import brings them back (ADR 16)."""

from __future__ import annotations

import contextlib
import os

FILENAME = ".audit-watermark"
_MAX_BYTES = 64


def watermark_path(store_dir: str) -> str:
    """Where the watermark of the markdown in `store_dir` is kept."""
    return os.path.join(store_dir, FILENAME)


def read_watermark(store_dir: str) -> int:
    """The highest sequence number whose markdown was written (0 when none was, or the file is unreadable)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)  # cheap: the hook reads it
    try:
        fd = os.open(watermark_path(store_dir), flags)
    except OSError:
        return 0
    try:
        text = os.read(fd, _MAX_BYTES).decode("ascii", "replace").strip()
    except OSError:
        return 0
    finally:
        os.close(fd)
    return int(text) if text.isdigit() else 0


def advance_watermark(store_dir: str, seq: int) -> None:
    """Record that markdown up to `seq` was written (call under the markdown lock); never moves back. A file
    that cannot be written only leaves the watermark behind, which is safe: behind never triggers an import."""
    from memory_adapters.fs.safe_files import write_private_no_follow

    if seq <= read_watermark(store_dir):
        return
    with contextlib.suppress(OSError):
        write_private_no_follow(watermark_path(store_dir), f"{seq}\n")
