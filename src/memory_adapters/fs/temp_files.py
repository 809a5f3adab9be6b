"""Temp files named after their writer (`<target>.tmp-<pid>-<thread>`), so the next writer can remove the ones whose
writer died (killed by a hook timeout, kill -9, a crash) instead of leaving them behind for ever."""

from __future__ import annotations

import glob
import os
import threading
import time
from typing import Optional

TEMP_SUFFIX = ".tmp-"
ABANDONED_AFTER_S = 600  # a temp file of an older version's writer (no pid in its name), untouched this long


def temp_path(target: str) -> str:
    """This writer's temp file for `target` (process and thread: two writers in one process never share one)."""
    return f"{target}{TEMP_SUFFIX}{os.getpid()}-{threading.get_ident()}"


def unlink_quietly(path: str) -> None:
    """Remove a file if it is there."""
    try:
        os.unlink(path)
    except OSError:
        pass


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists (owned by anyone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def remove_abandoned_temps(target: str, legacy_pattern: Optional[str] = None) -> int:
    """Delete `<target>.tmp-<pid>` files of writers that are gone, and files matching `legacy_pattern` (in the
    target's directory) older than ABANDONED_AFTER_S; returns how many were removed."""
    removed = 0
    for temp in glob.glob(glob.escape(target) + TEMP_SUFFIX + "*"):
        pid = temp.rsplit(TEMP_SUFFIX, 1)[1].split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not pid_alive(int(pid)):
            unlink_quietly(temp)
            removed += 1
    if legacy_pattern:
        directory = os.path.dirname(os.path.abspath(target))
        for temp in glob.glob(os.path.join(glob.escape(directory), legacy_pattern)):
            try:
                if time.time() - os.lstat(temp).st_mtime > ABANDONED_AFTER_S:
                    unlink_quietly(temp)
                    removed += 1
            except OSError:
                continue
    return removed
