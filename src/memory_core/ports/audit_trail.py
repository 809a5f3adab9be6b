"""Audit trail port: the human-readable markdown copy every write also goes to (spec 001 D9)."""

from __future__ import annotations

from typing import ContextManager, Protocol, runtime_checkable

from memory_core.entries.records import Entry


@runtime_checkable
class AuditTrail(Protocol):
    """Records entries where `import` can rebuild the database from."""

    def record(self, entry: Entry, increment: bool = False) -> list[str]:
        """Append the entry (or update its counters; +1 from the file's own count with `increment`)."""
        ...

    def forget(self, entry_id: str, category: str) -> list[str]:
        """Remove the entry's block, so a rebuild does not revive it."""
        ...

    def exclusive(self) -> ContextManager[None]:
        """Hold the markdown lock (re-entrant within this process) across a read and the writes it decides."""
        ...
