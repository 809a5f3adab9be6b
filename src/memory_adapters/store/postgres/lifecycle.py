"""The PostgreSQL spelling of the entry lifecycle (`sql.lifecycle`): the entry read locked, a whole entry written
back as it was (its scopes and staged vector follow its row by foreign key), its markdown queued in the same
transaction."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Optional

from memory_adapters.store.postgres.connection import utc
from memory_adapters.store.postgres.rows import COLUMNS, entry_of
from memory_adapters.store.sql.rows import anchors_json, dumps
from memory_core.entries.records import Entry

if TYPE_CHECKING:
    from memory_adapters.store.postgres.outbox import PostgresMarkdownOutbox

_WRITTEN = ('id, name, description, reasoning, category, keywords, "references", observation_count, confidence, '
            "recall_count, last_recalled_at, created_at, updated_at, source, source_project, source_user, scope, "
            "anchors")
INSERT_WHOLE = (f"INSERT INTO entries ({_WRITTEN}) VALUES (%s, %s, %s, %s, %s, %s::jsonb, %s::jsonb, "
                + ", ".join(["%s"] * 10) + ", %s::jsonb)")


class PostgresLifecycleRows:
    """LifecycleRows in PostgreSQL; a row written back names `source_user` as this store's writer."""

    mark = "%s"
    json_mark = "%s::jsonb"

    def __init__(self, outbox: "PostgresMarkdownOutbox", source_user: str) -> None:
        self._outbox = outbox
        self._source_user = source_user

    def stored(self, conn: Any, entry_id: str) -> Optional[Entry]:
        """The live entry with this id, its row locked until commit; None when there is none."""
        row = conn.execute(f"SELECT {COLUMNS} FROM entries WHERE id = %s FOR UPDATE", (entry_id,)).fetchone()
        return entry_of(row) if row else None

    def insert(self, conn: Any, entry: Entry) -> None:
        """Write a new row holding the whole entry, without a vector."""
        conn.execute(INSERT_WHOLE, (
            entry.id, entry.name, entry.description, entry.reasoning, entry.category, dumps(entry.keywords),
            dumps(entry.references), entry.observation_count, entry.confidence, entry.recall_count,
            entry.last_recalled_at and utc(entry.last_recalled_at), utc(entry.created_at), utc(entry.updated_at),
            entry.source, entry.source_project, self._source_user, entry.scope, anchors_json(entry.anchors)))

    def remove(self, conn: Any, entry_id: str) -> None:
        """Delete the entry's row (its scopes and staged vector go with it)."""
        conn.execute("DELETE FROM entries WHERE id = %s", (entry_id,))

    def queue(self, conn: Any, entry: Entry, action: str) -> None:
        """Queue the entry's markdown write in this transaction."""
        self._outbox.entry_written(conn, entry, action)

    def time(self, when: datetime) -> datetime:
        """UTC to the second, as every time of this store is kept."""
        return utc(when)
