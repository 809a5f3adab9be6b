"""Starts `iflow-memory embed` detached, so pending vectors get done without making a session wait."""

from __future__ import annotations

import os
import subprocess
import sys
import time

LOCK_NAME = ".embed.lock"
STALE_AFTER_S = 15 * 60
DISABLE_VARIABLE = "IFLOW_MEMORY_BACKGROUND"


def background_allowed() -> bool:
    """False when IFLOW_MEMORY_BACKGROUND=0 (tests and scripted runs that want no stray processes)."""
    return os.environ.get(DISABLE_VARIABLE, "1") != "0"


def take_lock(global_store: str) -> bool:
    """Create the embed lock; a lock older than 15 minutes is considered abandoned."""
    path = os.path.join(global_store, LOCK_NAME)
    try:
        if time.time() - os.path.getmtime(path) > STALE_AFTER_S:
            os.unlink(path)
    except OSError:
        pass
    try:
        handle = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except OSError:
        return False
    os.write(handle, str(os.getpid()).encode())
    os.close(handle)
    return True


def release_lock(global_store: str) -> None:
    """Remove the embed lock."""
    try:
        os.unlink(os.path.join(global_store, LOCK_NAME))
    except OSError:
        pass


def spawn_embedder(project_root: str, global_store: str) -> bool:
    """Start a detached `embed` run unless one holds the lock; never raises."""
    if not background_allowed() or not take_lock(global_store):
        return False
    command = [sys.executable, "-m", "memory_apps.cli", "embed", "--quiet", "--lock-held",
               "--project-root", project_root, "--global-store", global_store]
    try:
        subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True, close_fds=True)
    except OSError:
        release_lock(global_store)
        return False
    return True
