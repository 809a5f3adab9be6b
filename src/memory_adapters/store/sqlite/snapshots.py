"""Recent consistent copies of the database (SQLite's online backup API), private and rotated, so a rebuild
after real corruption keeps what markdown does not carry: recall counts, vectors, tombstones, query vectors."""

from __future__ import annotations

import calendar
import contextlib
import os
import sqlite3
import time
from typing import Callable, Optional

from memory_adapters.fs.safe_files import PRIVATE, replacing
from memory_adapters.store.sqlite.health import quick_check

SNAPSHOT_DIR = "snapshots"
KEEP = 3
EVERY_S = 6 * 3600.0
_PREFIX, _SUFFIX = "memory-", ".db"


def snapshot_dir(db_path: str) -> str:
    """Where the snapshots of this database live (beside it, private)."""
    return os.path.join(os.path.dirname(os.path.abspath(db_path)), SNAPSHOT_DIR)


def snapshots(db_path: str) -> list[str]:
    """The snapshot files of this database, newest first."""
    directory = snapshot_dir(db_path)
    try:
        names = [n for n in os.listdir(directory) if n.startswith(_PREFIX) and n.endswith(_SUFFIX)]
    except OSError:
        return []
    return [os.path.join(directory, n) for n in sorted(names, reverse=True)]


def _taken_at(path: str) -> float:
    """When a snapshot was taken, from the UTC stamp in its name (its mtime when the name is not ours)."""
    stamp = os.path.basename(path)[len(_PREFIX):len(_PREFIX) + 15]
    try:
        return float(calendar.timegm(time.strptime(stamp, "%Y%m%dT%H%M%S")))
    except ValueError:
        return os.stat(path).st_mtime


def _copy(source: sqlite3.Connection, target_path: str, create_only: bool = False) -> None:
    """Copy a consistent image of `source` into a new private file at `target_path` (a temp name first).

    With `create_only`, a file that appeared at `target_path` meanwhile wins (FileExistsError)."""
    with replacing(target_path, PRIVATE, refuse_links=False, sync=False, create_only=create_only) as temp:
        target = sqlite3.connect(temp.name)
        try:
            source.backup(target)
            target.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, no -wal beside it
        finally:
            target.close()


def take_snapshot(db_path: str, now: Callable[[], float] = time.time, every_s: float = EVERY_S,
                  keep: int = KEEP) -> Optional[str]:
    """Snapshot the database when the newest snapshot is older than `every_s`; keep the newest `keep`.

    Returns the new snapshot's path, or None when none was due. Raises sqlite3.Error / OSError."""
    existing = snapshots(db_path)
    if existing and now() - _taken_at(existing[0]) < every_s:
        return None
    directory = snapshot_dir(db_path)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now()))
    target = os.path.join(directory, f"{_PREFIX}{stamp}-{os.getpid()}{_SUFFIX}")
    source = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        _copy(source, target)
    finally:
        source.close()
    for old in snapshots(db_path)[keep:]:
        with contextlib.suppress(OSError):
            os.unlink(old)
    return target


def restore_newest(db_path: str) -> Optional[str]:
    """Put the newest sound snapshot in place of a missing database; returns the snapshot used, or None.

    A snapshot is used only when SQLite's quick_check passes on it; the database file must not exist."""
    for candidate in snapshots(db_path):
        try:
            source = sqlite3.connect(f"file:{candidate}?mode=ro", uri=True)
        except sqlite3.Error:
            continue
        try:
            if quick_check(source) is not None:
                continue
            _copy(source, db_path, create_only=True)
            return candidate
        except FileExistsError:
            return None
        except sqlite3.DatabaseError:
            continue
        finally:
            source.close()
    return None
