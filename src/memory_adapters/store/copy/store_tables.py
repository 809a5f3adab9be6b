"""Which side of a copy a store is: `copy_tables(store)` picks its CopyTables (the copy itself knows none)."""

from __future__ import annotations

from memory_adapters.store.copy.tables import CopyTables


def copy_tables(store: object) -> CopyTables:
    """The CopyTables of an SqliteEntryStore or a PostgresEntryStore (a copy between SQLite files loads no
    PostgreSQL module)."""
    from memory_adapters.store.sqlite.store import SqliteEntryStore

    if isinstance(store, SqliteEntryStore):
        from memory_adapters.store.copy.sqlite_tables import SqliteCopyTables

        return SqliteCopyTables(store)
    from memory_adapters.store.copy.postgres_tables import PostgresCopyTables

    return PostgresCopyTables(store)  # type: ignore[arg-type]
