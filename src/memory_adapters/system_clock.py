"""SystemClock: the real time, in UTC."""

from __future__ import annotations

import os
import time
from datetime import datetime, timezone
from typing import Optional


class SystemClock:
    """Implements Clock with the system time."""

    def now(self) -> datetime:
        """Return the current UTC time."""
        return datetime.now(timezone.utc)


def process_started_at(ticker_now: Optional[float] = None) -> float:
    """When this process started, on `time.monotonic()`'s clock.

    Linux reports the start in `/proc/self/stat` (clock ticks since boot), so the interpreter's own start-up
    and imports count against a deadline. Elsewhere, or when the answer looks wrong, it is now."""
    now = time.monotonic() if ticker_now is None else ticker_now
    try:
        with open("/proc/self/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        started_ticks = int(fields[19])  # field 22 of stat(5); the first two were cut off with the name
        since_boot = time.clock_gettime(time.CLOCK_BOOTTIME)
        age = since_boot - started_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    return now - age if 0.0 <= age <= MAX_BELIEVABLE_AGE_S else now


MAX_BELIEVABLE_AGE_S = 30.0
