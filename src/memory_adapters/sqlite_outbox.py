"""The markdown outbox of the SQLite store: a row per owed markdown write, queued in the entry's transaction."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from typing import Sequence

from memory_adapters.sql_outbox import SqlMarkdownOutbox
from memory_adapters.sqlite_connection import to_text
from memory_adapters.sqlite_entries import SqliteEntries
from memory_core.ports.audit_outbox import AuditTask
from memory_core.records import Entry


class SqliteMarkdownOutbox(SqlMarkdownOutbox, SqliteEntries):
    """AuditOutbox over the `markdown_outbox` table; queuing is on when the store writes for an audit trail.
    Queuing on, pending_audit and audit_failed come from SqlMarkdownOutbox."""

    def _entry_written(self, conn: sqlite3.Connection, entry: Entry, action: str) -> None:
        if not self._outbox_on:
            return
        # A newer write of the same entry replaces the row (new seq): the older writer's "done" leaves it queued.
        conn.execute("INSERT OR REPLACE INTO markdown_outbox(entry_id, action, category, project_root, queued_at) "
                     "VALUES (?, ?, ?, ?, ?)", (entry.id, action, entry.category, self._outbox_root or "",
                                                to_text(datetime.now(timezone.utc))))

    def audit_done(self, tasks: Sequence[AuditTask]) -> None:
        """Forget these tasks, unless a newer write of the same entry queued them again meanwhile."""
        if tasks:
            with self._tx() as conn:
                conn.executemany("DELETE FROM markdown_outbox WHERE seq = ?", [(t.seq,) for t in tasks])
