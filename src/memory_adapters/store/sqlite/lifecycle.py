"""The SQLite spelling of the entry lifecycle (`sql.lifecycle`): a whole entry written back as it was, removed
with its scopes and staged vector, its markdown queued in the same transaction."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import TYPE_CHECKING, Optional

from memory_adapters.store.sql.rows import anchors_json, dumps
from memory_adapters.store.sqlite.connection import to_text
from memory_adapters.store.sqlite.entries import remove_entry, stored_entry
from memory_core.entries.records import Entry

if TYPE_CHECKING:
    from memory_adapters.store.sqlite.outbox import SqliteMarkdownOutbox

_WRITTEN = ('id, name, description, reasoning, category, keywords, "references", observation_count, confidence, '
            "recall_count, last_recalled_at, created_at, updated_at, source, source_project, scope, anchors")
INSERT_WHOLE = f"INSERT INTO entries ({_WRITTEN}) VALUES ({', '.join('?' * 17)})"


class SqliteLifecycleRows:
    """LifecycleRows in SQLite (the transaction is IMMEDIATE: what is read stays as read until commit)."""

    mark = "?"
    json_mark = "?"

    def __init__(self, outbox: "SqliteMarkdownOutbox") -> None:
        self._outbox = outbox

    def stored(self, conn: sqlite3.Connection, entry_id: str) -> Optional[Entry]:
        """The live entry with this id, or None."""
        return stored_entry(conn, entry_id)

    def insert(self, conn: sqlite3.Connection, entry: Entry) -> None:
        """Write a new row holding the whole entry, without a vector."""
        conn.execute(INSERT_WHOLE, (
            entry.id, entry.name, entry.description, entry.reasoning, entry.category, dumps(entry.keywords),
            dumps(entry.references), entry.observation_count, entry.confidence, entry.recall_count,
            entry.last_recalled_at and to_text(entry.last_recalled_at), to_text(entry.created_at),
            to_text(entry.updated_at), entry.source, entry.source_project, entry.scope, anchors_json(entry.anchors)))

    def remove(self, conn: sqlite3.Connection, entry_id: str) -> None:
        """Delete the entry's row with its extra scopes and staged vector."""
        remove_entry(conn, entry_id)

    def queue(self, conn: sqlite3.Connection, entry: Entry, action: str) -> None:
        """Queue the entry's markdown write in this transaction."""
        self._outbox.entry_written(conn, entry, action)

    def time(self, when: datetime) -> str:
        """ISO 8601 UTC text."""
        return to_text(when)
