"""Whether a database is sound, decided only by SQLite's own answers, and moving a corrupt one aside.

The file is never opened with a Python file object: closing such a handle drops every POSIX lock this process
holds on it (SQLite's documented pitfall), and a header read beside live WAL checkpoints sees sizes that are not
corruption. `SQLITE_CORRUPT`/`SQLITE_NOTADB` and `PRAGMA quick_check` are the only evidence (ADR 7)."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
from typing import Optional

from memory_adapters.fs.safe_files import UnsafeFile, read_text_no_follow, write_private_no_follow

MARKER_SUFFIX = ".verified"


def _fingerprint(path: str) -> dict:
    stat = os.stat(path)
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "inode": stat.st_ino}


def verified_unchanged(path: str) -> bool:
    """True when the file is exactly as it was at its last successful full check."""
    try:
        return json.loads(read_text_no_follow(path + MARKER_SUFFIX, 4096)) == _fingerprint(path)
    except (OSError, ValueError):
        return False


def mark_verified(path: str) -> None:
    """Remember the file's fingerprint after a successful full check."""
    try:
        write_private_no_follow(path + MARKER_SUFFIX, json.dumps(_fingerprint(path)))
    except UnsafeFile as exc:  # a link there: its target is left untouched; the check just runs again next time
        print(f"iflow-memory: {exc}", file=sys.stderr)
    except OSError:
        pass


CORRUPT_CODES = frozenset({11, 26})  # SQLITE_CORRUPT, SQLITE_NOTADB (primary codes)
_CORRUPT_TEXT = ("database disk image is malformed", "file is not a database")


def is_corruption(exc: BaseException) -> bool:
    """True when SQLite itself answered SQLITE_CORRUPT or SQLITE_NOTADB (extended codes included)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in CORRUPT_CODES
    # Python 3.10's sqlite3 has no error codes: SQLite's own messages for those two codes.
    return isinstance(exc, sqlite3.DatabaseError) and any(t in str(exc).lower() for t in _CORRUPT_TEXT)


def quick_check(conn: sqlite3.Connection) -> Optional[str]:
    """SQLite's quick_check; None when the database is sound."""
    try:
        rows = conn.execute("PRAGMA quick_check(5)").fetchall()
    except sqlite3.DatabaseError as exc:
        if is_corruption(exc):
            return str(exc)
        raise
    messages = [r[0] for r in rows]
    return None if messages == ["ok"] else "; ".join(messages)


def quarantine(path: str, identity: Optional[tuple[int, int]] = None, label: str = "corrupt") -> Optional[str]:
    """Rename the database (and its -wal/-shm) to `<name>.<label>-<timestamp>`; returns the new path.

    With `identity` (device, inode of the file that was judged), a file another process has already moved
    aside and rebuilt is left alone: only the judged file is ever moved."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    if identity is not None and (stat.st_dev, stat.st_ino) != tuple(identity):
        return None
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = f"{path}.{label}-{stamp}"
    n = 1
    while os.path.exists(target):
        n += 1
        target = f"{path}.{label}-{stamp}-{n}"
    os.replace(path, target)
    for suffix in ("-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.replace(path + suffix, target + suffix)
    try:
        os.unlink(path + MARKER_SUFFIX)
    except OSError:
        pass
    return target


def move_aside(path: str, exc: BaseException) -> Optional[str]:
    """Move the database an error judged (corrupt, or another program's) aside; None if already moved."""
    from memory_core.errors import ForeignDatabase

    label = "foreign" if isinstance(exc, ForeignDatabase) else "corrupt"
    return quarantine(path, getattr(exc, "identity", None), label)
