"""The hook process's watchdog: it ends a session start stuck past its deadline, says what held it up, and never
cuts an import batch in half (a busy laptop would otherwise lose its first import again at every session)."""

from __future__ import annotations

import os
import sys
import threading
from typing import Callable, Optional

from memory_core.session.deadline import Deadline
from memory_core.session.progress import IMPORTING, RANKING, WRITING, ProgressSnapshot, SessionProgress

WATCHDOG_GRACE_S = 0.6
"""How long after its deadline a hook process may still be busy before the watchdog answers from markdown, if
nothing is out yet, and ends the process."""
BATCH_GRACE_S = 1.0
"""How much longer an import batch being committed when the watchdog fires may take, so the batch is kept and
the next session starts past it. With the answer after it, the process still ends well within Claude Code's
5-second hook timeout."""
ANSWER_GRACE_S = 0.4
"""After that batch, how long the session's own answer (ranked from the database) may take to come out."""
DONE_GRACE_S = 0.2
"""After that answer, how long the session may take to start its background run before the process ends."""
HARD_STOP_S = 2.5
"""Whatever the session and the markdown fallback still do, the process ends this long after the deadline
(4.5 s after a hook process started: inside Claude Code's 5-second hook timeout), answering empty if nothing
is out yet (the markdown of a very big bank takes long to read on a busy machine)."""
LAST_END_S = 2.8
"""Only a batch being written at the hard stop is waited for, and only until this long after the deadline
(4.8 s after a hook process started with the default 2 s deadline: still inside the 5-second timeout)."""
DATABASE_STAGES = (IMPORTING, RANKING, WRITING)


def overrun_cause(seen: ProgressSnapshot, server: bool) -> str:
    """What held the session up: the stage, the entries its import committed; a server is suspected only when
    there is one (a local SQLite file has none)."""
    cause = f"deadline reached while {seen.stage}"
    if seen.stage == IMPORTING or seen.committed:
        cause += f"; {seen.committed} entries committed by its import (later sessions resume it)"
    if server and seen.stage in DATABASE_STAGES:
        cause += "; a database server that stopped answering?"
    return cause


class SessionWatchdog:
    """Watches one session start: `answered` is set once its block is out, `done` once the session has finished."""

    def __init__(self, deadline: Deadline, progress: SessionProgress, fallback: Callable[[str], Optional[bool]],
                 server: bool = False, end: Optional[Callable[[int], None]] = None,
                 silence: Callable[[], object] = lambda: None) -> None:
        self.deadline = deadline
        self.progress = progress
        self.answered = threading.Event()
        self.done = threading.Event()
        self._fallback = fallback
        self.server = server
        """The store is a database server (only then is a server suspected)."""
        self._end = end
        self._silence = silence

    def start(self) -> None:
        """Watch on daemon threads: one answers and ends the process, one ends it in any case a little later."""
        threading.Thread(target=self.watch, name="iflow-memory-watchdog", daemon=True).start()
        threading.Thread(target=self.hard_stop, name="iflow-memory-hard-stop", daemon=True).start()

    def hard_stop(self) -> bool:
        """End the process HARD_STOP_S after the deadline unless the session is done (LAST_END_S when a batch
        is being written), with an empty answer when none is out yet; True when it did."""
        if Deadline(self.deadline.ticker, self.deadline.expires_at + HARD_STOP_S).wait(self.done):
            return False
        try:
            if not self.answered.is_set():
                print("iflow-memory: no answer was ready well after the deadline; answering empty", file=sys.stderr)
                self._silence()
            if self.progress.snapshot().writing:  # the answer is out: a batch being written is still kept
                Deadline(self.deadline.ticker, self.deadline.expires_at + LAST_END_S).wait(self.progress.batch_done)
        finally:
            sys.stderr.flush()
            (self._end or os._exit)(0)
        return True

    def watch(self) -> Optional[str]:
        """Wait for the session; past deadline + grace, let a batch being committed finish (and the session
        answer after it), else print the markdown pipeline's block naming the cause; then end the process.
        Returns the reason printed (None when the session answered itself)."""
        ticker = self.deadline.ticker
        fire_at = self.deadline.expires_at + WATCHDOG_GRACE_S
        if Deadline(ticker, fire_at).wait(self.done):
            return None
        seen = self.progress.snapshot()
        # An import that has not committed its first batch yet (or is writing one) is let finish that batch:
        # ending the process would lose it, and the next session would start from nothing again.
        if seen.stage == IMPORTING and (seen.writing or not seen.committed) and not self.answered.is_set():
            if Deadline(ticker, ticker.monotonic() + BATCH_GRACE_S).wait(self.progress.batch_ended_event) and \
                    Deadline(ticker, ticker.monotonic() + ANSWER_GRACE_S).wait(self.answered):
                Deadline(ticker, ticker.monotonic() + DONE_GRACE_S).wait(self.done)  # its background run
            seen = self.progress.snapshot()
        reason = None
        try:
            if not self.answered.is_set():
                cause = overrun_cause(seen, self.server)
                reason = f"session start did not finish in time: {cause}"
                if self._fallback(reason) is not False:  # False: the session's own block came out first
                    print(f"iflow-memory: the session start did not finish by its deadline ({cause}); "
                          "answered from markdown", file=sys.stderr)
        finally:
            sys.stderr.flush()
            (self._end or os._exit)(0)  # looked up now: no teardown, the worker thread cannot hold the process
        return reason
