"""ReconcileAudit: write the markdown a store owes for committed entries, so database and markdown never drift.

A write commits the entry and an outbox row together; the markdown follows. A writer killed in between leaves
the row, and the next write, open or background run replays it. Under the markdown lock each task writes the
entry's *current* state (or removes it), so a late or repeated replay can never put back an older state."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, ContextManager, Optional

from memory_core.ports.audit_outbox import AuditOutbox, AuditTask
from memory_core.ports.audit_trail import AuditTrail
from memory_core.ports.entry_store import EntryStore

BATCH = 100


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
            done = [task for task in tasks if self._replay(task, report)]
            self._store.audit_done(done)
        report.done = len(done)
        return report

    def _replay(self, task: AuditTask, report: ReconcileReport) -> bool:
        audit = self._audit_for(task.project_root)
        try:
            if task.action == "forget":
                audit.forget(task.entry_id, task.category)
            else:
                entry = self._store.get(task.entry_id)
                if entry is not None:  # gone: its delete queued (and replaced this row with) a forget
                    audit.record(entry)
        except OSError as exc:
            self._store.audit_failed(task)  # type: ignore[attr-defined]
            report.problems.append(f"markdown audit trail not written for {task.entry_id}: {exc}")
            return False
        return True
