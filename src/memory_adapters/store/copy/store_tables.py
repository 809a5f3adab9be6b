"""Which side of a copy a store is: `copy_tables(store)` picks its CopyTables (the copy itself knows none)."""

from __future__ import annotations

from memory_adapters.store.copy.postgres_tables import PostgresCopyTables
from memory_adapters.store.copy.sqlite_tables import SqliteCopyTables
from memory_adapters.store.copy.tables import CopyTables
from memory_adapters.store.postgres.store import PostgresEntryStore
from memory_adapters.store.sqlite.store import SqliteEntryStore


def copy_tables(store: SqliteEntryStore | PostgresEntryStore) -> CopyTables:
    """The CopyTables of an SqliteEntryStore or a PostgresEntryStore."""
    if isinstance(store, SqliteEntryStore):
        return SqliteCopyTables(store)
    return PostgresCopyTables(store)
