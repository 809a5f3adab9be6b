"""The markdown outbox as SQLite and PostgreSQL share it: switching queuing on, reading the owed writes and
counting a failure. Each store writes its own queue row and deletes done tasks in its own dialect."""

from __future__ import annotations

from typing import Any, Callable, Optional

from memory_adapters.store.sql.dialect import SqlDialect
from memory_core.ports.audit_outbox import AuditTask


class SqlMarkdownOutbox:
    """The dialect-neutral part of AuditOutbox over the `markdown_outbox` table, for any SQL connection."""

    _outbox_root: Optional[str] = None
    _outbox_on = False
    _dialect: SqlDialect  # set by the store
    _read: Callable[..., list[tuple]]  # from the store's connection class: (sql, params) -> rows
    _write: Callable[..., Any]  # (sql, params), in a transaction of its own

    def queue_markdown(self, project_root: Optional[str]) -> None:
        """From now on, every entry written or deleted also queues its markdown write for this project."""
        self._outbox_on = True
        self._outbox_root = project_root

    def _outbox_mine(self) -> tuple[str, tuple]:
        """The WHERE clause (and its parameters) of the owed writes this process replays: all of them here; a
        shared server's store keeps each machine's own (their markdown lives on that machine)."""
        return "", ()

    def pending_audit(self, limit: int) -> list[AuditTask]:
        """The oldest owed markdown writes, at most `limit`."""
        mine, params = self._outbox_mine()
        rows = self._read(f"SELECT seq, entry_id, action, category, project_root FROM markdown_outbox{mine} "
                          f"ORDER BY seq LIMIT {self._dialect.mark}", (*params, limit))
        return [AuditTask(seq, entry_id, action, category, root or None)
                for seq, entry_id, action, category, root in rows]

    def audit_failed(self, task: AuditTask) -> None:
        """Count a failed attempt (the task stays queued)."""
        self._write(f"UPDATE markdown_outbox SET attempts = attempts + 1 WHERE seq = {self._dialect.mark}",
                    (task.seq,))
