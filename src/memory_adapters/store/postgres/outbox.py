"""The markdown outbox of the PostgreSQL store: a row per owed markdown write, queued in the entry's transaction."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Sequence

from memory_adapters.store.postgres.connection import PostgresConnection
from memory_adapters.store.sql.outbox import SqlMarkdownOutbox
from memory_core.ports.audit_outbox import AuditTask
from memory_core.entries.records import Entry


class PostgresMarkdownOutbox(SqlMarkdownOutbox):
    """AuditOutbox over the `markdown_outbox` table; queuing is on when the store writes for an audit trail.
    Queuing on, pending_audit and audit_failed come from SqlMarkdownOutbox. Each row names the machine (and global
    store) whose markdown it owes (`origin`): a process replays its own machine's rows only."""

    def __init__(self, connection: PostgresConnection, origin: str) -> None:
        super().__init__(connection, "%s", mine=(" WHERE origin = %s", (origin,)))
        self._origin = origin

    def entry_written(self, conn: Any, entry: Entry, action: str) -> None:
        """Queue the entry's markdown write in the entry's transaction `conn`, when queuing is on."""
        if not self.queuing:
            return
        # A newer write of the same entry takes a new seq: the older writer's "done" leaves it queued.
        conn.execute("INSERT INTO markdown_outbox (entry_id, action, category, project_root, origin, queued_at) "
                     "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (entry_id, project_root, origin) DO UPDATE SET "
                     "seq = nextval('markdown_outbox_seq'), action = excluded.action, category = excluded.category, "
                     "queued_at = excluded.queued_at, attempts = 0",
                     (entry.id, action, entry.category, self.project_root or "", self._origin,
                      datetime.now(timezone.utc)))

    def audit_done(self, tasks: Sequence[AuditTask]) -> None:
        """Forget these tasks, unless a newer write of the same entry queued them again meanwhile."""
        if tasks:
            self._connection.write("DELETE FROM markdown_outbox WHERE seq = ANY(%s)", ([t.seq for t in tasks],))
