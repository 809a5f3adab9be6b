"""Cheap and full checks that a database file is sound, and moving a corrupt one aside (never deleting it)."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from typing import Optional

HEADER_MAGIC = b"SQLite format 3\x00"
MARKER_SUFFIX = ".verified"


def header_problem(path: str) -> Optional[str]:
    """Read the 100-byte header: wrong magic, bad page size or a file shorter than its pages means corrupt."""
    try:
        size = os.path.getsize(path)
        if size == 0:
            return None  # SQLite treats an empty file as a new database
        with open(path, "rb") as handle:
            header = handle.read(100)
    except OSError:
        return None  # missing or unreachable: opening reports it as a storage error, not corruption
    if len(header) < 100 or not header.startswith(HEADER_MAGIC):
        return "not an SQLite database (bad header)"
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or page_size & (page_size - 1):
        return "bad page size in header"
    if size % page_size:
        return "file size is not a whole number of pages (truncated?)"
    pages = int.from_bytes(header[28:32], "big")
    valid_for = int.from_bytes(header[92:96], "big")
    change_counter = int.from_bytes(header[24:28], "big")
    if pages and valid_for == change_counter and size < pages * page_size:
        return f"truncated: header says {pages} pages, file has {size // page_size}"
    return None


def _fingerprint(path: str) -> dict:
    stat = os.stat(path)
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "inode": stat.st_ino}


def verified_unchanged(path: str) -> bool:
    """True when the file is exactly as it was at its last successful full check."""
    try:
        with open(path + MARKER_SUFFIX, encoding="utf-8") as handle:
            return json.load(handle) == _fingerprint(path)
    except (OSError, ValueError):
        return False


def mark_verified(path: str) -> None:
    """Remember the file's fingerprint after a successful full check."""
    try:
        fd = os.open(path + MARKER_SUFFIX, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(_fingerprint(path), handle)
    except OSError:
        pass


def quick_check(conn: sqlite3.Connection) -> Optional[str]:
    """SQLite's quick_check; None when the database is sound."""
    try:
        rows = conn.execute("PRAGMA quick_check(5)").fetchall()
    except sqlite3.DatabaseError as exc:
        return str(exc)
    messages = [r[0] for r in rows]
    return None if messages == ["ok"] else "; ".join(messages)


def quarantine(path: str) -> Optional[str]:
    """Rename the database (and its -wal/-shm) to `<name>.corrupt-<timestamp>`; returns the new path."""
    if not os.path.exists(path):
        return None
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = f"{path}.corrupt-{stamp}"
    n = 1
    while os.path.exists(target):
        n += 1
        target = f"{path}.corrupt-{stamp}-{n}"
    os.replace(path, target)
    for suffix in ("-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.replace(path + suffix, target + suffix)
    try:
        os.unlink(path + MARKER_SUFFIX)
    except OSError:
        pass
    return target
