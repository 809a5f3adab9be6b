"""Start the store's warm server detached, at most one at a time, without ever waiting for it."""

from __future__ import annotations

import os
import sys
import time

from memory_adapters.shared_work.background_work import background_allowed
from memory_adapters.shared_work.file_leases import FileLeases
from memory_apps.warm.paths import warm_dir
from memory_apps.warm.private_dirs import ensure_private_dir, open_log
from memory_apps.warm.server import LEASE_TASK

STAMP_NAME = "last-start"
RESPAWN_AFTER_S = 10.0  # a server that dies while loading (say, no model) must not cost every prompt a spawn


def start_warm(store_dir: str) -> bool:
    """Spawn `python -m memory_apps.warm --global-store <store>` in a new session unless a server holds the
    lease, one was spawned in the last RESPAWN_AFTER_S, the store does not exist, or IFLOW_MEMORY_BACKGROUND=0.
    Returns whether it spawned; never raises, never waits."""
    try:
        return _start(os.path.abspath(store_dir))
    except Exception:  # a hook calls this on its way out: a failure costs only the warmth
        return False


def _start(store: str) -> bool:
    if not background_allowed() or not os.path.isdir(store) or FileLeases(store).busy(LEASE_TASK):
        return False
    if _started_recently(store):
        return False
    import subprocess  # ~3 ms: only a hook that found no server pays it

    command = [sys.executable, *(["-P"] if sys.version_info >= (3, 11) else []), "-m", "memory_apps.warm",
               "--global-store", store]
    log = open_log(store)
    try:
        # cwd "/" and -P: a project's `numpy.py` or `memory_apps/` in the hook's directory is never imported
        subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=log if log is not None else subprocess.DEVNULL, cwd="/", env=_child_env(),
                         start_new_session=True, close_fds=True)
    except OSError:
        return False
    finally:
        if log is not None:
            os.close(log)
    return True


def _child_env() -> dict:
    """This process's environment, its PYTHONPATH made absolute (the child runs in "/") and led by the directory
    this package was imported from, so the server runs the very code the hook runs."""
    env = dict(os.environ)
    entries = [os.path.abspath(entry) for entry in env.get("PYTHONPATH", "").split(os.pathsep) if entry]
    source_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if source_root not in entries and not _installed_in(source_root):
        entries.insert(0, source_root)
    if entries:
        env["PYTHONPATH"] = os.pathsep.join(entries)
    return env


def _installed_in(directory: str) -> bool:
    """True for the interpreter's own site-packages (already on the child's path; never put before the stdlib)."""
    import sysconfig

    paths = sysconfig.get_paths()
    return directory in {os.path.abspath(paths.get("purelib", "")), os.path.abspath(paths.get("platlib", ""))}


def _started_recently(store: str) -> bool:
    """True when a spawn happened less than RESPAWN_AFTER_S ago; otherwise records this one."""
    directory = warm_dir(store)
    ensure_private_dir(directory)
    stamp = os.path.join(directory, STAMP_NAME)
    try:
        if time.time() - os.lstat(stamp).st_mtime < RESPAWN_AFTER_S:
            return True
    except OSError:
        pass
    fd = os.open(stamp, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        os.utime(fd)
    finally:
        os.close(fd)
    return False
