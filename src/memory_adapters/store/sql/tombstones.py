"""Applying tombstones, written once for both stores: what was deleted after its last write stays deleted (a
restored snapshot, or a database that lost commits, may predate the delete); an entry written again since stays."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Optional, Protocol

from memory_adapters.store.sql.connection import SqlConnection


class TombstoneRows(Protocol):
    """One store's reads and writes of what a tombstone names, inside the caller's transaction."""

    def written_at(self, conn: Any, entry_id: str) -> Optional[datetime]:
        """When the stored entry was last written (locked until commit); None when nothing is stored to remove."""
        ...

    def as_stored(self, when: datetime) -> datetime:
        """A tombstone's time as the store compares it with `written_at`."""
        ...

    def remove(self, conn: Any, entry_id: str) -> int:
        """Delete the entry with its scopes and staged vector; returns how many entries that deleted."""
        ...

    def keep(self, conn: Any, entry_id: str, when: datetime) -> None:
        """Record the tombstone, unless one is recorded already."""
        ...


class SqlTombstones:
    """The store's `apply_tombstones`."""

    def __init__(self, connection: SqlConnection, rows: TombstoneRows) -> None:
        self._connection = connection
        self._rows = rows

    def apply_tombstones(self, tombstones: dict[str, datetime]) -> int:
        """Keep deleted what was deleted after its last write; returns how many stored entries this removed."""
        rows = self._rows

        def work(conn: Any) -> int:
            removed = 0
            for entry_id, when in sorted(tombstones.items()):  # one lock order for every writer
                written = rows.written_at(conn, entry_id)
                if written is not None and written > rows.as_stored(when):
                    continue  # written again after that delete
                if written is not None:
                    removed += rows.remove(conn, entry_id)
                rows.keep(conn, entry_id, when)
            return removed

        return self._connection.transaction(work)
