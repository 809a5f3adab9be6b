"""The markdown outbox as SQLite and PostgreSQL share it: switching queuing on, reading the owed writes and
counting a failure. Each store's outbox adds its own queue row and how done tasks are forgotten."""

from __future__ import annotations

from typing import Optional

from memory_adapters.store.sql.connection import SqlConnection
from memory_core.ports.audit_outbox import AuditTask


class SqlMarkdownOutbox:
    """The dialect-neutral part of AuditOutbox over the `markdown_outbox` table. `mine` is the WHERE clause (and
    its parameters) of the owed writes this process replays: all of them by default; a shared server's store keeps
    each machine's own (their markdown lives on that machine)."""

    def __init__(self, connection: SqlConnection, mark: str, mine: tuple[str, tuple] = ("", ())) -> None:
        self._connection = connection
        self._mark = mark
        self._mine = mine
        self.queuing = False  # the store writes for an audit trail: every entry written queues its markdown
        self.project_root: Optional[str] = None

    def queue_markdown(self, project_root: Optional[str]) -> None:
        """From now on, every entry written or deleted also queues its markdown write for this project."""
        self.queuing = True
        self.project_root = project_root

    def pending_audit(self, limit: int) -> list[AuditTask]:
        """The oldest owed markdown writes, at most `limit`."""
        mine, params = self._mine
        rows = self._connection.read(f"SELECT seq, entry_id, action, category, project_root FROM markdown_outbox"
                                     f"{mine} ORDER BY seq LIMIT {self._mark}", (*params, limit))
        return [AuditTask(seq, entry_id, action, category, root or None)
                for seq, entry_id, action, category, root in rows]

    def audit_failed(self, task: AuditTask) -> None:
        """Count a failed attempt (the task stays queued)."""
        self._connection.write(f"UPDATE markdown_outbox SET attempts = attempts + 1 WHERE seq = {self._mark}",
                               (task.seq,))
