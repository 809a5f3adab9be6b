"""The markdown outbox of the SQLite store: a row per owed markdown write, queued in the entry's transaction."""

from __future__ import annotations

import os
import sqlite3
from datetime import datetime, timezone
from typing import Any, Sequence

from memory_adapters.markdown.audit_watermark import advance_watermark, read_watermark
from memory_adapters.store.sql.outbox import SqlMarkdownOutbox
from memory_adapters.store.sql.tombstones import SqlTombstones
from memory_adapters.store.sqlite.connection import SqliteConnection, to_text
from memory_adapters.store.sqlite.rows import SET_META
from memory_core.ports.audit_outbox import AuditTask
from memory_core.entries.records import Entry

BEHIND_KEY = "markdown-ahead"
"""`_metadata` key kept while the database is known to be behind its markdown: a write numbered after the
watermark would otherwise hide the loss for good (a write that does not import first: the MCP server, the
library). Cleared by `caught_up`."""


class SqliteMarkdownOutbox(SqlMarkdownOutbox):
    """AuditOutbox and AuditWatermark over the `markdown_outbox` table and the store directory's watermark;
    queuing is on when the store writes for an audit trail. Queuing on, pending_audit and audit_failed come from
    SqlMarkdownOutbox; the tombstones are applied again when the database lost commits."""

    def __init__(self, connection: SqliteConnection, tombstones: SqlTombstones) -> None:
        super().__init__(connection, "?")
        self._tombstones = tombstones
        self.history_target: Any = None
        """The store (EntryStore and EntryLifecycle) a reopened import puts the markdown's history back into."""

    def entry_written(self, conn: sqlite3.Connection, entry: Entry, action: str) -> None:
        """Queue the entry's markdown write in the entry's transaction `conn`, when queuing is on."""
        if not self.queuing:
            return
        written = read_watermark(self._store_dir())  # before this write's number can pass it
        if written > self._assigned_seq_in(conn):
            conn.execute(SET_META, (BEHIND_KEY, str(written)))
        # A newer write of the same entry replaces the row (new seq): the older writer's "done" leaves it queued.
        conn.execute("INSERT OR REPLACE INTO markdown_outbox(entry_id, action, category, project_root, queued_at) "
                     "VALUES (?, ?, ?, ?, ?)", (entry.id, action, entry.category, self.project_root or "",
                                                to_text(datetime.now(timezone.utc))))

    def audit_done(self, tasks: Sequence[AuditTask]) -> None:
        """Forget these tasks, unless a newer write of the same entry queued them again meanwhile."""
        if tasks:
            seqs = [(t.seq,) for t in tasks]
            self._connection.transaction(
                lambda conn: conn.executemany("DELETE FROM markdown_outbox WHERE seq = ?", seqs))
            advance_watermark(self._store_dir(), max(t.seq for t in tasks))  # their markdown is written

    def _store_dir(self) -> str:
        return os.path.dirname(os.path.abspath(self._connection.path))

    def _assigned_seq(self) -> int:
        """The highest outbox number this database ever assigned (AUTOINCREMENT never reuses one)."""
        rows = self._connection.read("SELECT seq FROM sqlite_sequence WHERE name = 'markdown_outbox'")
        return int(rows[0][0]) if rows and rows[0][0] is not None else 0

    @staticmethod
    def _assigned_seq_in(conn: sqlite3.Connection) -> int:
        row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'markdown_outbox'").fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    def markdown_ahead(self) -> bool:
        """True when the markdown recorded a write newer than anything this database committed (it lost commits:
        a deleted `-wal`, an older copy put back), so the next import must read the markdown again."""
        # The watermark first: it only moves after the commit it names, so a concurrent write is never "lost".
        written = read_watermark(self._store_dir())
        if written > 0 and written > self._assigned_seq():
            return True
        # Found behind before (and not caught up since):
        return bool(self._connection.read("SELECT 1 FROM _metadata WHERE key = ?", (BEHIND_KEY,)))

    def reopen_imports(self) -> int:
        """The database lost commits: apply the store's list of deletes again (a lost delete stays done) and the
        markdown's history (a lost retirement or edit stays done, ADR 26), and forget which banks were imported, so
        each project's bank is read again; returns the entries the deletes removed."""
        from memory_adapters.markdown.tombstones import read_tombstones

        tombstones = read_tombstones(self._store_dir())
        removed = self._tombstones.apply_tombstones(tombstones) if tombstones else 0
        if self.history_target is not None:
            self._reapply_history()
        # A lost write may sit in any project's bank:
        self._connection.write("DELETE FROM _metadata WHERE key LIKE 'imported:%'")
        return removed

    def _reapply_history(self) -> None:
        from memory_adapters.markdown.history_file import read_history
        from memory_core.usecases.rebuild_history import apply_history_file

        try:
            history = read_history(self._store_dir())
        except OSError:  # a link or an unreadable file: the history stays as the database has it
            return
        apply_history_file(self.history_target, history.events, history.retired, history.aliases,
                           history.restored)

    def caught_up(self) -> None:
        """The markdown was imported again: take its watermark, so later writes are numbered after it."""
        written = read_watermark(self._store_dir())

        def work(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM _metadata WHERE key = ?", (BEHIND_KEY,))
            if conn.execute("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'markdown_outbox'",
                            (written,)).rowcount == 0:
                conn.execute("INSERT INTO sqlite_sequence(name, seq) VALUES ('markdown_outbox', ?)", (written,))

        self._connection.transaction(work)
