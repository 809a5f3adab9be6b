"""Audit watermark port: whether the markdown holds writes the database lost (a deleted `-wal`, an old copy)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class AuditWatermark(Protocol):
    """A store that can tell, cheaply, that its markdown audit trail recorded commits it no longer holds."""

    def markdown_ahead(self) -> bool:
        """True when the markdown recorded a write newer than anything this database committed."""
        ...

    def reapply_deletes(self) -> int:
        """Apply the store's list of deleted entries again (a delete the database lost stays done); returns how
        many stored entries this removed."""
        ...

    def caught_up(self) -> None:
        """The markdown was imported again: agree with its watermark, so later writes are numbered after it."""
        ...
