"""The Review page's queues on a big store: computed in a thread and kept, so a page answers at once with the last
result and its age rather than waiting seconds (10k entries: every entry read, every vector compared)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable, NamedTuple, Optional

MAX_AGE_S = 60.0
"""A kept result older than this is recomputed in the background (shown meanwhile, with its age)."""


@dataclass(frozen=True)
class KeptReview:
    """One computed review: the queues, when, and the generation it answers."""

    queues: Any
    computed_at: datetime
    generation: int
    took_s: float
    monotonic: float


class Answer(NamedTuple):
    """What `get` found: the last result (None before the first), whether a newer one is being computed, and
    whether the last one was computed after the latest change."""

    kept: Optional[KeptReview]
    updating: bool
    current: bool


class ReviewKeeper:
    """Runs `compute` in one background thread at a time and keeps its last result. `invalidate` (a change was
    made) asks for a newer one; the thread runs again until its result answers the latest generation."""

    def __init__(self, compute: Callable[[], Any], max_age_s: float = MAX_AGE_S,
                 clock: Callable[[], float] = time.monotonic,
                 now: Callable[[], datetime] = lambda: datetime.now(timezone.utc)) -> None:
        self._compute, self._max_age_s, self._clock, self._now = compute, max_age_s, clock, now
        self._changed = threading.Condition()
        self._kept: Optional[KeptReview] = None
        self._wanted = 0
        self._running = False
        self._error: Optional[BaseException] = None

    def invalidate(self) -> None:
        """The store changed: the next result must be computed after now."""
        with self._changed:
            self._wanted += 1

    def get(self, wait_s: float) -> Answer:
        """The last result, starting a newer one when it is missing, predates a change or is old; waits up to
        `wait_s` when there is none yet or the last predates a change. An error with no result to show is raised."""
        with self._changed:
            if self._outdated():
                self._start()
            if self._kept is None or self._kept.generation < self._wanted:
                self._changed.wait_for(lambda: not self._running or self._answered(), timeout=wait_s)
            if self._kept is None and self._error is not None:
                error, self._error = self._error, None
                raise error
            return Answer(self._kept, self._running, self._answered())

    def _answered(self) -> bool:
        return self._kept is not None and self._kept.generation >= self._wanted

    def _outdated(self) -> bool:
        return not self._answered() or self._clock() - self._kept.monotonic > self._max_age_s

    def _start(self) -> None:
        if not self._running:
            self._running, self._error = True, None
            threading.Thread(target=self._run, name="review-keeper", daemon=True).start()

    def _run(self) -> None:
        while True:
            with self._changed:
                generation = self._wanted
            started = self._clock()
            try:
                queues, error = self._compute(), None
            except Exception as exc:  # kept for the page to raise (a database error is shown, not lost)
                queues, error = None, exc
            with self._changed:
                if error is None:
                    done = self._clock()
                    self._kept = KeptReview(queues, self._now(), generation, done - started, done)
                else:
                    self._error = error
                if error is not None or self._wanted == generation:
                    self._running = False
                    self._changed.notify_all()
                    return
                self._changed.notify_all()
