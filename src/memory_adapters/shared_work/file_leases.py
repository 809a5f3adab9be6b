"""FileLeases: leases on named tasks shared by every process using one global store (`flock`ed files).

A lease is an exclusive `flock` on `<store>/.locks/<task>.lock`. The kernel gives it back when the holder
exits, however it exits (kill -9 included), so a lease is never left stale by a dead process. The file
records who holds it (pid, task, since) for `doctor`; a holder older than `STUCK_AFTER_S` is reported as
stuck (background runs end themselves well before that).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import time
from typing import Optional

from memory_adapters.fs.temp_files import pid_alive

LOCKS_DIR = ".locks"
STUCK_AFTER_S = 30 * 60
_SAFE = re.compile(r"[^a-z0-9]+")


def lease_file(directory: str, task: str) -> str:
    """The lock file of a task: a readable prefix and a hash of the whole task name."""
    prefix = _SAFE.sub("-", task.split(":", 1)[0].lower()).strip("-") or "task"
    import hashlib  # ~2 ms (OpenSSL): a session start without leases to take never needs it

    digest = hashlib.sha256(task.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return os.path.join(directory, f"{prefix}-{digest}.lock")


class FileLeases:
    """Non-blocking (or briefly waiting) leases on task names, held until released or the process ends."""

    def __init__(self, global_store: str) -> None:
        self.directory = os.path.join(global_store, LOCKS_DIR)
        self._held: dict[str, int] = {}

    def _open(self, task: str) -> Optional[int]:
        try:
            os.makedirs(self.directory, mode=0o700, exist_ok=True)
            return os.open(lease_file(self.directory, task), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        except OSError:
            return None

    def claim(self, task: str) -> bool:
        """Take the lease without waiting; False when another process (or nobody, on an unusable disk) has it."""
        if task in self._held:
            return True
        fd = self._open(task)
        if fd is None:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        record = json.dumps({"pid": os.getpid(), "task": task, "since": time.time()}).encode()
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, record, 0)
        except OSError:
            pass  # the lease holds without its note
        self._held[task] = fd
        return True

    def claim_within(self, task: str, seconds: float, step_s: float = 0.1) -> bool:
        """Try to take the lease for up to `seconds` (a background run waiting for a session to finish)."""
        give_up = time.monotonic() + seconds
        while not self.claim(task):
            if time.monotonic() >= give_up:
                return False
            time.sleep(step_s)
        return True

    def release(self, task: str) -> None:
        """Give the lease back (the file stays: unlinking a lock file races with the next holder)."""
        fd = self._held.pop(task, None)
        if fd is None:
            return
        try:
            os.ftruncate(fd, 0)
        except OSError:
            pass
        os.close(fd)  # closing the only descriptor drops the flock

    def busy(self, task: str) -> bool:
        """True when another process holds the lease right now."""
        if task in self._held:
            return False
        return self._live_holder(lease_file(self.directory, task)) is not None

    def holders(self) -> list[dict]:
        """Who holds which lease now: pid, task, since (seconds since the epoch) and whether it looks stuck."""
        try:
            names = sorted(os.listdir(self.directory))
        except OSError:
            return []
        found = []
        for name in names:
            record = self._live_holder(os.path.join(self.directory, name)) if name.endswith(".lock") else None
            if record:
                record["stuck"] = time.time() - float(record.get("since", 0)) > STUCK_AFTER_S
                found.append(record)
        return found

    def _live_holder(self, path: str) -> Optional[dict]:
        """The holder's note when a live process other than this one holds the lease. The file is probed with a
        shared lock only when its note names a live process, so probing never gets in a free lease's way."""
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            return None
        try:
            record = _record(os.pread(fd, 4096, 0))
            pid = record.get("pid") if record else None
            if not isinstance(pid, int) or pid == os.getpid() or not pid_alive(pid):
                return None  # released (the note is emptied), or its holder died
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError:
                return record  # really held
            fcntl.flock(fd, fcntl.LOCK_UN)
            return None  # a stale note of a holder whose pid was reused
        finally:
            os.close(fd)



def _record(raw: bytes) -> Optional[dict]:
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return data if isinstance(data, dict) else None
