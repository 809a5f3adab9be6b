"""One deadline for a whole piece of work, passed down to every stage that may take long.

Time comes from a `Ticker` (a monotonic clock that can also wait for an event), so tests drive deadlines
with a fake ticker and slow fakes instead of measuring the machine's speed.
"""

from __future__ import annotations

import threading
import time
from typing import Optional, Protocol, runtime_checkable


@runtime_checkable
class Ticker(Protocol):
    """A monotonic clock in seconds that can wait for an event with a timeout."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes backwards."""
        ...

    def wait(self, event: threading.Event, timeout: float) -> bool:
        """Wait until `event` is set or `timeout` seconds passed; True when the event is set."""
        ...


class MonotonicTicker:
    """The real Ticker: the process's monotonic clock and real waits."""

    def monotonic(self) -> float:
        """Seconds on `time.monotonic()`."""
        return time.monotonic()

    def wait(self, event: threading.Event, timeout: float) -> bool:
        """Block on the event for at most `timeout` seconds."""
        return event.wait(max(0.0, timeout))


class Deadline:
    """An instant on a ticker's clock by which the work must be done."""

    def __init__(self, ticker: Ticker, expires_at: float) -> None:
        self.ticker = ticker
        self.expires_at = expires_at

    @classmethod
    def after(cls, ticker: Ticker, seconds: float, started_at: Optional[float] = None) -> "Deadline":
        """A deadline `seconds` after `started_at` (default: now) on the ticker's clock."""
        start = ticker.monotonic() if started_at is None else started_at
        return cls(ticker, start + seconds)

    @classmethod
    def never(cls, ticker: Ticker) -> "Deadline":
        """A deadline that does not expire (command-line tools that may take as long as they need)."""
        return cls(ticker, float("inf"))

    def remaining(self) -> float:
        """Seconds left, never negative."""
        return max(0.0, self.expires_at - self.ticker.monotonic())

    def expired(self) -> bool:
        """True once the deadline has passed."""
        return self.ticker.monotonic() >= self.expires_at

    def allows(self, seconds: float) -> bool:
        """True when at least `seconds` are left."""
        return self.remaining() > seconds

    def cap(self, seconds: float) -> float:
        """`seconds`, or what is left if that is less."""
        return min(seconds, self.remaining())

    def earlier(self, seconds: float) -> "Deadline":
        """A deadline `seconds` before this one (a stage that must leave time for the stages after it)."""
        return Deadline(self.ticker, self.expires_at - seconds)

    def wait(self, event: threading.Event) -> bool:
        """Wait for `event` until the deadline; True when it was set in time."""
        if event.is_set():
            return True
        remaining = self.remaining()
        if remaining <= 0:
            return False
        return self.ticker.wait(event, min(remaining, 86_400.0))


class DeadlineExceeded(Exception):
    """A stage gave up because its deadline passed; what it finished so far is kept."""
