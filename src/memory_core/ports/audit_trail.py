"""Audit trail port: the human-readable markdown copy every write also goes to (spec 001 D9)."""

from __future__ import annotations

from typing import ContextManager, Protocol, Sequence, runtime_checkable

from memory_core.entries.records import Entry, HistoryEvent, RetiredEntry


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


@runtime_checkable
class LifecycleTrail(Protocol):
    """An audit trail that also keeps what the entry lifecycle changes (ADR 26), so a rebuild loses none of it."""

    def withdraw(self, entry_id: str, category: str, from_bank: bool = False) -> list[str]:
        """Remove a retired or edited-away entry's block from the store's own markdown, listing no deletion;
        `from_bank`: from the project's knowledge bank too (a block this trail wrote there, never a hand-written
        one)."""
        ...

    def history_count(self) -> int:
        """How many events the markdown's history holds (cheap: compared with the database's to skip a rewrite)."""
        ...

    def write_history(self, events: Sequence[HistoryEvent], retired: Sequence[RetiredEntry],
                      restored: Sequence[Entry] = ()) -> list[str]:
        """Write the whole history (the retired entries carried whole, and the `restored` live entries no markdown
        holds); call under `exclusive`."""
        ...
