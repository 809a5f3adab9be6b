"""What the SQLite and PostgreSQL copy tables do the same way: entries read page by page, metadata and the
lifecycle tables read and written through the store."""

from __future__ import annotations

from typing import Any

from memory_adapters.store.copy.tables import CopiedLifecycle
from memory_adapters.store.sql.rows import ENTRY_WIDTH


class PagedEntryRows:
    """`count` and `entry_page` over one store: rows in first-stored order after a position, `limit` at a time.
    A subclass gives its store, its select (the position column right after the entry's columns), that column
    (`rowid` or `seq`) and its driver's placeholder (`?` or `%s`), and turns rows into copied entries (`_copied`)."""

    def __init__(self, store: Any, select: str, order: str, mark: str) -> None:
        self._store = store
        self._select, self._order, self._mark = select, order, mark

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
        return self._copied(rows), (rows[-1][ENTRY_WIDTH] if rows else after), len(rows)

    def set_metadata(self, key: str, value: str) -> None:
        """Write one `_metadata` value through the store (on PostgreSQL, pinning the width builds the HNSW index)."""
        self._store.set_metadata(key, value)

    def lifecycle(self) -> CopiedLifecycle:
        """The history, retired entries, aliases and bank blocks, through the store's EntryLifecycle."""
        store = self._store
        banks: dict[str, dict[tuple[str, str], str]] = {}
        for bank, category, name, entry_id in store.connection.read("SELECT bank, category, name, id FROM "
                                                                    "bank_blocks ORDER BY bank, category, name"):
            banks.setdefault(bank, {})[(category, name)] = entry_id
        return CopiedLifecycle(store.all_history(), store.retired_entries(), store.aliases(), banks)

    def write_lifecycle(self, owed: CopiedLifecycle, unretired: set[str]) -> None:
        """Add events and aliases (as a rebuild does), hold the retired entries exactly, replace the banks' blocks."""
        store = self._store
        store.apply_history(owed.events, [], owed.aliases)
        store.put_retired(owed.retired, sorted(unretired))
        for bank, blocks in sorted(owed.bank_blocks.items()):
            store.set_bank_blocks(bank, blocks)
