"""Audit watermark port: whether the markdown holds writes the database lost (a deleted `-wal`, an old copy)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class AuditWatermark(Protocol):
    """A store that can tell, cheaply, that its markdown audit trail recorded commits it no longer holds."""

    def markdown_ahead(self) -> bool:
        """True when the markdown recorded a write newer than anything this database committed."""
        ...

    def reopen_imports(self) -> int:
        """The database lost commits: apply the store's list of deletes again (a lost delete stays done) and forget
        which banks were imported, so each project's bank is read again; returns the entries the deletes removed."""
        ...

    def caught_up(self) -> None:
        """The markdown was imported again: agree with its watermark, so later writes are numbered after it."""
        ...
