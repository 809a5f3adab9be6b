"""What a session start is doing at this moment, shared with the hook process's watchdog thread (stdlib only).

The watchdog ends a hook process that overran its deadline. It reads this to say what really held the session
up, and to let an import batch that is being committed finish first: cutting it would lose the batch, and a
busy machine would then never get past its first import.
"""

from __future__ import annotations

import threading
from typing import NamedTuple, Optional, Sequence

STARTING = "starting (loading settings and modules)"
IDENTITY = "finding the project's identity (git)"
OPENING = "opening the database"
CONTEXT = "reading the project's context (git)"
IMPORTING = "importing the knowledge bank"
RANKING = "ranking in the database"
VECTORS = "waiting for the query embedding and the stored vectors"
WRITING = "writing recalls after the answer"


class ProgressSnapshot(NamedTuple):
    """The stage, the entries the import committed in this session and those of the batch being committed."""

    stage: str
    committed: int
    writing: int


class SessionProgress:
    """Thread-safe record of a session start's stage and of its import batches."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stage = STARTING
        self._committed = 0
        self._writing = 0
        self.batch_done = threading.Event()
        """Set while no import batch is being committed."""
        self.batch_done.set()
        self.batch_ended_event = threading.Event()
        """Set once an import batch ended, until the next one starts (the first one, for an import under way)."""
        self.sources: Optional[Sequence] = None
        """The knowledge-bank entries the import parsed (local first, then global): a fallback block made from
        markdown reuses them instead of reading a big bank again on a busy machine."""

    def enter(self, stage: str) -> None:
        """The session moved on to `stage`."""
        with self._lock:
            self._stage = stage

    def batch_started(self, size: int) -> None:
        """An import batch of `size` entries is being committed."""
        with self._lock:
            self._writing = size
            self.batch_done.clear()
            self.batch_ended_event.clear()

    def batch_ended(self, committed: int) -> None:
        """The batch is over: `committed` entries of it reached the database (0 when it failed)."""
        with self._lock:
            self._committed += committed
            self._writing = 0
            self.batch_done.set()
            self.batch_ended_event.set()

    def snapshot(self) -> ProgressSnapshot:
        """The current stage and import counts."""
        with self._lock:
            return ProgressSnapshot(self._stage, self._committed, self._writing)
