"""SystemClock: the real time, in UTC."""

from __future__ import annotations

from datetime import datetime, timezone


class SystemClock:
    """Implements Clock with the system time."""

    def now(self) -> datetime:
        """Return the current UTC time."""
        return datetime.now(timezone.utc)
