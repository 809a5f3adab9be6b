"""ReconcileAudit: write the markdown a store owes for committed entries, so database and markdown never drift.

A write commits the entry and an outbox row together; the markdown follows. A writer killed in between leaves
the row, and the next write, open or background run replays it. Under the markdown lock each task writes the
entry's *current* state (or removes it), so a late or repeated replay can never put back an older state. An entry
that left by retirement or an edit loses its block in the store's own markdown (no tombstone: it may come back),
and in the project's bank when this trail wrote it there (never a block the user wrote: an imported entry's); the
history file is written again whenever it lags the database's (ADR 26)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, ContextManager, Optional, Sequence

from memory_core.entries.records import Entry, HistoryEvent
from memory_core.ports.audit_outbox import AuditOutbox, AuditTask
from memory_core.ports.audit_trail import AuditTrail, LifecycleTrail
from memory_core.ports.audit_watermark import AuditWatermark
from memory_core.ports.entry_lifecycle import EntryLifecycle
from memory_core.ports.entry_store import EntryStore

BATCH = 100
WRITTEN, LEFT = "written", "left"
IMPORTED = "import"
"""The source of an entry read from a bank the user writes: its markdown is that bank, not this trail's."""


def from_users_bank(entry: Entry) -> bool:
    """Whether the entry's block is the user's own writing in a bank (the trail never writes or removes it)."""
    return entry.source == IMPORTED


@dataclass
class ReconcileReport:
    """How many owed markdown writes were done, and what failed (the task stays queued)."""

    done: int = 0
    problems: list[str] = field(default_factory=list)


class ReconcileAudit:
    """Replays a store's markdown outbox through the audit trail of each task's project."""

    def __init__(self, store: EntryStore, audit_for: Callable[[Optional[str]], AuditTrail],
                 exclusive: Callable[[], ContextManager[None]]) -> None:
        self._store = store
        self._audit_for = audit_for
        self._exclusive = exclusive

    def run(self, limit: int = BATCH) -> ReconcileReport:
        """Replay up to `limit` owed markdown writes, oldest first."""
        report = ReconcileReport()
        if not isinstance(self._store, AuditOutbox):
            return report
        with self._exclusive():  # held across reading the entry and writing its markdown
            tasks = self._store.pending_audit(limit)
            outcomes = [(task, self._replay(task, report)) for task in tasks]
            done = [task for task, outcome in outcomes if outcome is not None]
            self._store.audit_done(done)
            self._keep_history(report, left=any(outcome == LEFT for _, outcome in outcomes))
        report.done = len(done)
        return report

    def _keep_history(self, report: ReconcileReport, left: bool) -> None:
        """Write the history file whole when an entry left (retired, edited, deleted) or it lacks events."""
        trail = self._audit_for(None)  # the global store's: where the history file lives
        if not isinstance(self._store, EntryLifecycle) or not isinstance(trail, LifecycleTrail):
            return
        if isinstance(self._store, AuditWatermark) and self._store.markdown_ahead():
            return  # the database lost commits the file still holds: the next import puts them back first
        try:
            events = self._store.all_history()
            if left or trail.history_count() != len(events):
                trail.write_history(events, self._store.retired_entries(), self._restored_bank_entries(events))
        except OSError as exc:  # the next run tries again: the counts still differ
            report.problems.append(f"markdown history not written: {exc}")

    def _replay(self, task: AuditTask, report: ReconcileReport) -> Optional[str]:
        """WRITTEN, LEFT (the entry left: deleted, retired, edited away) or None when the markdown failed."""
        audit = self._audit_for(task.project_root)
        try:
            if task.action == "forget":
                audit.forget(task.entry_id, task.category)
                return LEFT
            entry = self._store.get(task.entry_id)
            if entry is not None:
                if task.category and task.category != entry.category and isinstance(audit, LifecycleTrail):
                    # An edit moved it to another category: its old block leaves the old category's file.
                    audit.withdraw(entry.id, task.category, from_bank=not from_users_bank(entry))
                audit.record(entry)
                return WRITTEN
            from_bank = self._left(task.entry_id)
            if from_bank is not None and isinstance(audit, LifecycleTrail):
                audit.withdraw(task.entry_id, task.category, from_bank=from_bank)
            return LEFT  # or deleted: its delete queued (and replaced this row with) a forget
        except OSError as exc:
            self._store.audit_failed(task)  # type: ignore[attr-defined]
            report.problems.append(f"markdown audit trail not written for {task.entry_id}: {exc}")
            return None

    def _left(self, entry_id: str) -> Optional[bool]:
        """None unless the entry left by retirement or an edit (then its old block goes, without a tombstone);
        else whether the block leaves the project's bank too: when the entry is not the user's own bank writing
        (read from the retired entry, or for an edited-away id from the entry the edit made, which keeps the
        source). An alias whose target is gone as well leaves the bank alone."""
        store = self._store
        if not isinstance(store, EntryLifecycle):
            return None
        retired = store.retired(entry_id)
        if retired is not None:
            return not from_users_bank(retired.entry)
        current = store.resolve(entry_id)
        if current == entry_id:
            return None
        now = store.get(current)
        if now is None:
            later = store.retired(current)
            now = later.entry if later is not None else None
        return now is not None and not from_users_bank(now)

    def _restored_bank_entries(self, events: Sequence[HistoryEvent]) -> list[Entry]:
        """The restored entries, live now, whose markdown is a user's bank: the block may have left it (a restore
        writes none back, and the store's own markdown never holds them), so the history file carries them."""
        ids = sorted({e.entry_id for e in events if e.action == "restored"})
        return [entry for entry in self._store.get_many(ids) if from_users_bank(entry)] if ids else []
