"""The markdown outbox of the PostgreSQL store: a row per owed markdown write, queued in the entry's transaction."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Optional, Sequence

from memory_adapters.postgres_entries import PostgresEntries
from memory_core.ports.audit_outbox import AuditTask
from memory_core.records import Entry


class PostgresMarkdownOutbox(PostgresEntries):
    """AuditOutbox over the `markdown_outbox` table; queuing is on when the store writes for an audit trail."""

    _outbox_root: Optional[str] = None
    _outbox_on = False

    def queue_markdown(self, project_root: Optional[str]) -> None:
        """From now on, every entry written or deleted also queues its markdown write for this project."""
        self._outbox_on = True
        self._outbox_root = project_root

    def _entry_written(self, conn: Any, entry: Entry, action: str) -> None:
        if not self._outbox_on:
            return
        # A newer write of the same entry takes a new seq: the older writer's "done" leaves it queued.
        conn.execute("INSERT INTO markdown_outbox (entry_id, action, category, project_root, queued_at) "
                     "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (entry_id, project_root) DO UPDATE SET "
                     "seq = nextval('markdown_outbox_seq'), action = excluded.action, category = excluded.category, "
                     "queued_at = excluded.queued_at, attempts = 0",
                     (entry.id, action, entry.category, self._outbox_root or "", datetime.now(timezone.utc)))

    def pending_audit(self, limit: int) -> list[AuditTask]:
        """The oldest owed markdown writes, at most `limit`."""
        rows = self._read("SELECT seq, entry_id, action, category, project_root FROM markdown_outbox "
                          "ORDER BY seq LIMIT %s", (limit,))
        return [AuditTask(seq, entry_id, action, category, root or None)
                for seq, entry_id, action, category, root in rows]

    def audit_done(self, tasks: Sequence[AuditTask]) -> None:
        """Forget these tasks, unless a newer write of the same entry queued them again meanwhile."""
        if tasks:
            self._write("DELETE FROM markdown_outbox WHERE seq = ANY(%s)", ([t.seq for t in tasks],))

    def audit_failed(self, task: AuditTask) -> None:
        """Count a failed attempt (the task stays queued)."""
        self._write("UPDATE markdown_outbox SET attempts = attempts + 1 WHERE seq = %s", (task.seq,))
