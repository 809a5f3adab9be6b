"""The markdown lock: one exclusive `flock` per store directory, shared by every process that writes its
markdown, and re-entrant within a process (a replay holds it across a database read and the writes)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
from typing import Iterator

LOCK_NAME = ".markdown.lock"
_guard = threading.Lock()
_held: dict[str, tuple[threading.RLock, list[int]]] = {}  # directory -> (thread lock, [fd, depth])


def _entry(directory: str) -> tuple[threading.RLock, list[int]]:
    with _guard:
        return _held.setdefault(directory, (threading.RLock(), [-1, 0]))


@contextlib.contextmanager
def markdown_lock(directory: str) -> Iterator[None]:
    """Hold the exclusive markdown lock of `directory` (created private if missing)."""
    directory = os.path.abspath(directory)
    thread_lock, state = _entry(directory)
    with thread_lock:  # threads of this process take turns; the owning thread may nest
        if state[1] == 0:
            os.makedirs(directory, mode=0o700, exist_ok=True)
            fd = os.open(os.path.join(directory, LOCK_NAME), os.O_CREAT | os.O_RDWR | os.O_NOFOLLOW, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except BaseException:
                os.close(fd)
                raise
            state[0] = fd
        state[1] += 1
        try:
            yield
        finally:
            state[1] -= 1
            if state[1] == 0:
                fd, state[0] = state[0], -1
                with contextlib.suppress(OSError):
                    fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)
