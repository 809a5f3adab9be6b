"""Audit outbox port: markdown writes a store owes for entries it committed (queued in the same transaction)."""

from __future__ import annotations

from typing import NamedTuple, Optional, Protocol, Sequence, runtime_checkable


class AuditTask(NamedTuple):
    """One owed markdown write: record the entry's current state, or forget it, under one project root."""

    seq: int
    entry_id: str
    action: str  # "record" or "forget"
    category: str
    project_root: Optional[str]


@runtime_checkable
class AuditOutbox(Protocol):
    """A store that queues a markdown write with every entry it commits or deletes."""

    def pending_audit(self, limit: int) -> list[AuditTask]:
        """The oldest owed markdown writes, at most `limit`."""
        ...

    def audit_done(self, tasks: Sequence[AuditTask]) -> None:
        """Forget these tasks, unless a newer write of the same entry queued them again meanwhile."""
        ...

    def audit_failed(self, task: AuditTask) -> None:
        """Count a failed attempt (the task stays queued)."""
        ...
