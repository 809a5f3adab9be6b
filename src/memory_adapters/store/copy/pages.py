"""What the SQLite and PostgreSQL copy tables do the same way: entries read page by page, metadata written
through the store."""

from __future__ import annotations

from typing import Any


class PagedEntryRows:
    """`count` and `entry_page` over one store: rows in first-stored order after a position, `limit` at a time.
    A subclass names its select (the position column at index 17), that column and its driver's placeholder."""

    _store: Any
    _select: str
    _order: str  # `rowid` (SQLite) or `seq` (PostgreSQL)
    _mark: str  # `?` or `%s`

    def _copied(self, rows: list[tuple]) -> list:
        raise NotImplementedError

    def count(self) -> int:
        """The number of entry rows."""
        return self._store.count()

    def entry_page(self, after: int, limit: int) -> tuple[list, int, int]:
        """Up to `limit` rows after position `after`: (readable entries, last position, rows read)."""
        mark = self._mark
        rows = self._store.connection.read(f"{self._select} WHERE {self._order} > {mark} ORDER BY {self._order} "
                                           f"LIMIT {mark}", (after, limit))
        return self._copied(rows), (rows[-1][17] if rows else after), len(rows)

    def set_metadata(self, key: str, value: str) -> None:
        """Write one `_metadata` value through the store (on PostgreSQL, pinning the width builds the HNSW index)."""
        self._store.set_metadata(key, value)
