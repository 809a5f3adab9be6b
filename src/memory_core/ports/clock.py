"""Clock port: where the current time comes from."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol, runtime_checkable


@runtime_checkable
class Clock(Protocol):
    """Tells the time (timezone-aware UTC)."""

    def now(self) -> datetime:
        """Return the current time as an aware UTC datetime."""
        ...
