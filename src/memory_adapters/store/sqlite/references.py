"""The reference index of the SQLite store: the entries that cite files, for the code-reference signal."""

from __future__ import annotations

from memory_adapters.store.sqlite.connection import SqliteConnection
from memory_adapters.store.sql.rows import json_list


class SqliteReferences:
    """ReferenceIndex over the `references` column (a JSON list; `[]` for most entries)."""

    def __init__(self, connection: SqliteConnection) -> None:
        self._connection = connection

    def cited_files(self) -> dict[str, list[str]]:
        """Return {entry id: its references} for every entry that cites at least one."""
        with self._connection.locked() as conn:
            rows = conn.execute(
                "SELECT id, \"references\" FROM entries WHERE \"references\" NOT IN ('[]', '')").fetchall()
        cited = {}
        for entry_id, text in rows:
            references = json_list(text)
            if references:
                cited[entry_id] = references
        return cited
