"""Private by default, for upgraders too: a global store directory that others can read (the reference program's
`~/.claude/iflow/memory` was 0755 with 0644 files) is made private before it receives new learnings.

Only what this program owns in the store is touched: the directory itself, the files and folders it writes there.
A linked store directory, a link inside it and anything owned by another user are left alone. Once the directory
is 0700, nobody else can reach its entries, so this costs one `lstat` per run from then on."""

from __future__ import annotations

import contextlib
import os
import stat
from typing import Optional

# What the product writes in a store (kept import-free: every session start calls this). `memory.db` covers its
# `-wal`, `-shm`, `.verified`, `.vectors` and quarantined copies (`.corrupt-*`, `.foreign-*`).
OWNED_PREFIXES = ("memory.db",)
OWNED_FILES = frozenset({"anti-patterns.md", "heuristics.md", "patterns.md", "deleted-entries.txt",
                         ".last-injection.json", ".markdown.lock", ".audit-watermark", "machine-id"})
OWNED_DIRS = frozenset({"snapshots", "models", ".locks", "journal"})
_OTHERS = 0o077
MAX_DEPTH = 4  # models/<name>/<files>: deeper is not the product's layout


def _owned(name: str) -> bool:
    return name in OWNED_FILES or name in OWNED_DIRS or name.startswith(OWNED_PREFIXES)


def make_store_private(store_dir: str) -> Optional[str]:
    """Tighten a store that others can reach: the directory, its files and folders lose every group and other
    permission (0755 becomes 0700, 0644 becomes 0600); returns the one-line notice naming the modes that changed,
    or None when there was nothing to do (or it could not be done)."""
    try:
        info = os.lstat(store_dir)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or not stat.S_IMODE(info.st_mode) & _OTHERS or info.st_uid != os.geteuid():
        return None  # a link (the user's own arrangement), private already, or not ours to change
    try:
        fd = os.open(store_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    changed: set[tuple[int, int]] = set()
    try:
        # First: from now on nobody else can swap an entry for a link under us. Only others' bits go: a store the
        # user made read-only for themselves stays so.
        os.fchmod(fd, stat.S_IMODE(info.st_mode) & ~_OTHERS)
        changed.add((stat.S_IMODE(info.st_mode), stat.S_IMODE(info.st_mode) & ~_OTHERS))
        for name in os.listdir(fd):
            if _owned(name):
                _tighten(name, fd, changed)
    except OSError:
        return None
    finally:
        os.close(fd)
    modes = ", ".join(f"{old:04o} -> {new:04o}" for old, new in sorted(changed, reverse=True))
    return f"made the memory store {store_dir} private ({modes}): other users could read your learnings there"


def _tighten(name: str, dir_fd: int, changed: set[tuple[int, int]], depth: int = 0) -> None:
    """One owned entry of a (now private) directory: a regular file, or a folder with what it holds (everything in
    a folder of ours is ours), loses its group and other permissions, noted in `changed` as (old, new) modes;
    links and the rest are never followed."""
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return
    if info.st_uid != os.geteuid():
        return
    if stat.S_ISREG(info.st_mode):
        if stat.S_IMODE(info.st_mode) & _OTHERS:
            with contextlib.suppress(OSError):
                # By name in a directory only we can change: opening memory.db would drop this process's locks.
                os.chmod(name, stat.S_IMODE(info.st_mode) & ~_OTHERS, dir_fd=dir_fd)
                changed.add((stat.S_IMODE(info.st_mode), stat.S_IMODE(info.st_mode) & ~_OTHERS))
    elif stat.S_ISDIR(info.st_mode) and depth < MAX_DEPTH:
        try:
            fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
                         dir_fd=dir_fd)
        except OSError:
            return
        try:
            mode = stat.S_IMODE(os.fstat(fd).st_mode)
            if mode & _OTHERS:
                os.fchmod(fd, mode & ~_OTHERS)
                changed.add((mode, mode & ~_OTHERS))
            for inner in os.listdir(fd):
                _tighten(inner, fd, changed, depth + 1)
        except OSError:
            pass
        finally:
            os.close(fd)
