"""Shared work across processes: leases on tasks, and one detached `iflow-memory maintain` run per project that
finishes what a session start left (the rest of a first import, pending embeddings, the vector cache)."""

from __future__ import annotations

import os
import sys
import time

from memory_adapters.shared_work.file_leases import FileLeases, lease_file

DISABLE_VARIABLE = "IFLOW_MEMORY_BACKGROUND"
BACKGROUND_TASK = "background"
RESPAWN_AFTER_S = 30.0  # work a run could not finish (an unwritable cache, say) must not start one per session


def background_allowed() -> bool:
    """False when IFLOW_MEMORY_BACKGROUND=0 (tests and scripted runs that want no stray processes)."""
    return os.environ.get(DISABLE_VARIABLE, "1") != "0"


def background_task(project_root: str) -> str:
    """The lease a background run holds for its whole life."""
    return f"{BACKGROUND_TASK}:{os.path.abspath(project_root)}"


class BackgroundWork:
    """Implements SharedWork with file leases in the global store and a detached maintenance process."""

    def __init__(self, global_store: str) -> None:
        self.global_store = global_store
        self.leases = FileLeases(global_store)

    def claim(self, task: str) -> bool:
        """Take a lease without waiting."""
        return self.leases.claim(task)

    def release(self, task: str) -> None:
        """Give a lease back."""
        self.leases.release(task)

    def busy(self, task: str) -> bool:
        """True when another process holds the lease."""
        return self.leases.busy(task)

    def finish_in_background(self, project_root: str) -> bool:
        """Start `iflow-memory maintain` detached unless one already runs for this project; never raises."""
        task = background_task(project_root)
        if not background_allowed() or self.leases.busy(task) or self._started_recently(task):
            return False
        command = [sys.executable, "-m", "memory_apps.cli", "maintain", "--quiet",
                   "--project-root", os.path.abspath(project_root), "--global-store", self.global_store]
        import subprocess  # ~3 ms: only a session that leaves work behind starts a process

        try:
            subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)
        except OSError:
            return False
        return True

    def _started_recently(self, task: str) -> bool:
        """True when a run for this task started less than RESPAWN_AFTER_S ago; else records this start."""
        stamp = lease_file(self.leases.directory, task) + ".started"
        try:
            if time.time() - os.lstat(stamp).st_mtime < RESPAWN_AFTER_S:
                return True
        except OSError:
            pass
        try:
            os.makedirs(self.leases.directory, mode=0o700, exist_ok=True)
            os.close(os.open(stamp, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600))
            os.utime(stamp)
        except OSError:
            pass
        return False
