"""The reads of the entry store that SQLite and PostgreSQL answer with the same SQL, spelled by the store's
`SqlDialect`."""

from __future__ import annotations

import json
from typing import Optional, Sequence

from memory_adapters.store.sql.connection import SqlConnection
from memory_adapters.store.sql.dialect import SqlDialect
from memory_core.ports.entry_store import StoredState
from memory_core.entries.records import CATEGORIES, Entry


class SqlEntryReads:
    """EntryStore reads over the `entries`, `deleted_entries` and `_metadata` tables, for any SQL connection."""

    def __init__(self, connection: SqlConnection, dialect: SqlDialect) -> None:
        self._connection = connection
        self._dialect = dialect

    def get(self, entry_id: str) -> Optional[Entry]:
        """Return one entry by id, or None."""
        dialect = self._dialect
        rows = self._connection.read(f"SELECT {dialect.columns} FROM entries WHERE id = {dialect.mark}", (entry_id,))
        return dialect.entry_of(rows[0]) if rows else None

    def ids_with_prefix(self, prefix: str, limit: int) -> list[str]:
        """Return up to `limit` ids that start with `prefix`, in id order (substr: no LIKE wildcards, one case)."""
        mark = self._dialect.mark
        rows = self._connection.read(f"SELECT id FROM entries WHERE substr(id, 1, {mark}) = {mark} "
                                     f"ORDER BY id LIMIT {mark}",
                          (len(prefix), prefix, limit))
        return [row[0] for row in rows]

    def all_entries(self) -> list[Entry]:
        """Return every readable entry, without vectors, in the order they were first stored."""
        dialect = self._dialect
        rows = self._connection.read(f"SELECT {dialect.columns} FROM entries ORDER BY {dialect.stored_order}")
        return [e for e in map(dialect.entry_of, rows) if e is not None]

    def import_states(self, entry_ids: Sequence[str]) -> list[StoredState]:
        """What an import compares for the stored entries among these ids, read without building (and
        re-checking) whole entries; a row that breaks the model's basic rules is left out, so it is re-imported."""
        found = []
        for start in range(0, len(entry_ids), 500):
            chunk = list(entry_ids[start:start + 500])
            marks = ",".join([self._dialect.mark] * len(chunk))
            rows = self._connection.read("SELECT id, observation_count, keywords, scope, category, name, description "
                              f"FROM entries WHERE id IN ({marks})", chunk)
            found += [state for state in map(_stored_state, rows) if state is not None]
        return found

    def count(self) -> int:
        """Return the number of entries."""
        return int(self._connection.read("SELECT COUNT(*) FROM entries")[0][0])

    def deleted_ids(self) -> list[str]:
        """The ids of deleted entries (tombstones), so a rebuild never revives them."""
        return [r[0] for r in self._connection.read("SELECT id FROM deleted_entries ORDER BY id")]

    def get_metadata(self, key: str) -> Optional[str]:
        """Read one `_metadata` value."""
        rows = self._connection.read(f"SELECT value FROM _metadata WHERE key = {self._dialect.mark}", (key,))
        return rows[0][0] if rows else None

    def metadata_items(self, prefix: str) -> dict[str, str]:
        """The `_metadata` values whose key starts with `prefix` (a small table: filtered here, no LIKE escaping)."""
        rows = self._connection.read("SELECT key, value FROM _metadata")
        return {key: value for key, value in rows if key.startswith(prefix)}

def _stored_state(row: tuple) -> Optional[StoredState]:
    """The import state of one row, or None when the row is malformed (the full read would skip it too)."""
    entry_id, count, keywords, scope, category, name, description = row
    if not (isinstance(count, int) and count >= 1 and category in CATEGORIES
            and all(isinstance(t, str) and t.strip() for t in (entry_id, name, description))):
        return None
    if isinstance(keywords, str):  # SQLite keeps JSON text; PostgreSQL's jsonb arrives as a list
        try:
            keywords = json.loads(keywords)
        except ValueError:
            return None
    return StoredState(entry_id, count, bool(keywords), scope)
