"""The entry rows of the PostgreSQL store: each write reads the stored row (locked), merges it by the core's
rules and writes it back with one `INSERT … ON CONFLICT … DO UPDATE`, so concurrent writers never lose one."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence, TypeVar

from memory_adapters.store.postgres.connection import PostgresConnection, utc
from memory_adapters.store.postgres.rows import (COLUMNS, RANKING_SELECT, SCOPED, SELECT_FOR_MERGE, SET_META,
                                                 WRITE_ENTRY, entry_of, write_params)
from memory_adapters.store.postgres.schema import ensure_hnsw_index
from memory_adapters.store.sql.lifecycle_rows import entry_from_json
from memory_core.embedding.space import DIMENSIONS_KEY
from memory_core.entries.merge import imported, reinforced
from memory_core.entries.records import Entry, EntryStats, ImportOutcome, UpsertOutcome
from memory_core.errors import StorageError

if TYPE_CHECKING:
    from memory_adapters.store.postgres.outbox import PostgresMarkdownOutbox
    from memory_core.entries.models import EntryDraft

MERGE_ATTEMPTS = 20
RETIRED_OR_ALIASED = ("SELECT id FROM retired_entries WHERE id = ANY(%s) "
                      "UNION SELECT old_id FROM entry_aliases WHERE old_id = ANY(%s)")
R = TypeVar("R")


def os_user() -> str:
    """The OS user running this process (`source_user` unless configured)."""
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


class PostgresTombstoneRows:
    """TombstoneRows in PostgreSQL: the row is locked while its tombstone is decided; its scopes and staged vector
    go with it (foreign keys)."""

    def written_at(self, conn: Any, entry_id: str) -> Optional[datetime]:
        """When the stored entry was last written, locking its row; None when none is stored."""
        row = conn.execute("SELECT updated_at FROM entries WHERE id = %s FOR UPDATE", (entry_id,)).fetchone()
        return row[0] if row is not None else None

    def as_stored(self, when: datetime) -> datetime:
        """The tombstone's time in UTC to the second, as `updated_at` is kept."""
        return utc(when)

    def remove(self, conn: Any, entry_id: str) -> int:
        """Delete the entry (its scopes and staged vector with it)."""
        return conn.execute("DELETE FROM entries WHERE id = %s", (entry_id,)).rowcount

    def keep(self, conn: Any, entry_id: str, when: datetime) -> None:
        """Record the tombstone unless one is recorded already."""
        conn.execute("INSERT INTO deleted_entries (id, deleted_at) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                     (entry_id, utc(when)))


class PostgresEntries:
    """The writes of EntryStore, get_many and the ranking fields over the `entries`, `entry_scopes`,
    `deleted_entries` and `_metadata` tables; every write of an entry tells the outbox in its transaction, and
    records `source_user` as the entry's first author."""

    def __init__(self, connection: PostgresConnection, outbox: "PostgresMarkdownOutbox", source_user: str) -> None:
        self._connection = connection
        self._outbox = outbox
        self._source_user = source_user

    def _merge_write(self, conn: Any, entry_id: str, merge: Callable[[Optional[Entry]], tuple[R, Optional[Entry]]]
                     ) -> tuple[R, Optional[Entry]]:
        """`merge(stored)` gives (its verdict, the entry to write or None); the entry is written unless a concurrent
        writer created the row between the read and the write, in which case the merge runs again on that row."""
        for _ in range(MERGE_ATTEMPTS):
            row = conn.execute(SELECT_FOR_MERGE, (entry_id,)).fetchone()  # locks a stored row until commit
            verdict, entry = merge(entry_of(row) if row else None)
            if entry is None or conn.execute(WRITE_ENTRY, write_params(entry, self._source_user,
                                                                       row[-1] if row else None)).fetchone():
                return verdict, entry
        raise StorageError(f"entry {entry_id} kept changing while it was written")

    def upsert(self, draft: "EntryDraft", now: datetime) -> UpsertOutcome:
        """Insert, or reinforce (observation +1) and overwrite the text fields that were given."""
        def work(conn: Any) -> tuple[bool, Entry]:
            created, entry = self._merge_write(conn, draft.entry_id,
                                               lambda stored: (stored is None, reinforced(stored, draft, now)))
            conn.execute("DELETE FROM deleted_entries WHERE id = %s", (draft.entry_id,))
            self._outbox.entry_written(conn, entry, "record")
            return created, entry

        created, entry = self._connection.transaction(work)
        return UpsertOutcome(entry_id=entry.id, created=created, observation_count=entry.observation_count)

    def import_entries(self, items: Sequence[tuple["EntryDraft", Optional[datetime]]],
                       now: datetime) -> list[ImportOutcome]:
        """Import a batch of markdown entries in one transaction: all of it lands, or none of it."""
        def work(conn: Any) -> list[ImportOutcome]:
            ids = sorted({draft.entry_id for draft, _ in items})
            conn.execute("SELECT id FROM entries WHERE id = ANY(%s) ORDER BY id FOR UPDATE", (ids,))  # lock order
            deleted = {r[0] for r in conn.execute("SELECT id FROM deleted_entries WHERE id = ANY(%s)", (ids,))}
            retired = {r[0] for r in conn.execute(RETIRED_OR_ALIASED, (ids, ids))}
            outcomes = []
            for draft, updated_at in items:
                if draft.entry_id in retired:  # retired, or edited into a newer id: never brought back
                    outcomes.append(ImportOutcome(entry_id=draft.entry_id, status="retired"))
                    continue
                status, _ = self._merge_write(conn, draft.entry_id, lambda stored, d=draft, u=updated_at: imported(
                    stored, d, now, u, d.entry_id in deleted))
                outcomes.append(ImportOutcome(entry_id=draft.entry_id, status=status))
            return outcomes

        return self._connection.transaction(work) if items else []

    def delete(self, entry_id: str) -> bool:
        """Delete one entry, live (its scopes and staged vector go with it) or retired, with the aliases that lead
        to or from it, and keep its tombstone."""
        def work(conn: Any) -> bool:
            row = conn.execute(f"DELETE FROM entries WHERE id = %s RETURNING {COLUMNS}", (entry_id,)).fetchone()
            retired = conn.execute("DELETE FROM retired_entries WHERE id = %s RETURNING entry", (entry_id,)).fetchone()
            conn.execute("DELETE FROM entry_aliases WHERE old_id = %s OR new_id = %s", (entry_id, entry_id))
            if row is None and retired is None:
                return False
            conn.execute("INSERT INTO deleted_entries (id, deleted_at) VALUES (%s, %s) ON CONFLICT (id) "
                         "DO UPDATE SET deleted_at = excluded.deleted_at", (entry_id, utc(datetime.now(timezone.utc))))
            found = entry_from_json(retired[0]) if retired is not None else None
            existing = entry_of(row) if row is not None else (found[0] if found else None)
            if existing is not None:
                self._outbox.entry_written(conn, existing, "forget")
            return True

        return self._connection.transaction(work)

    def set_scope(self, entry_id: str, scope: Optional[str]) -> bool:
        """Change which projects' sessions see an entry (None: every project's); False when it is unknown."""
        def work(conn: Any) -> bool:
            row = conn.execute(f"UPDATE entries SET scope = %s WHERE id = %s RETURNING {COLUMNS}",
                               (scope, entry_id)).fetchone()
            entry = entry_of(row) if row else None
            if entry is not None:
                self._outbox.entry_written(conn, entry, "record")
            return row is not None

        return self._connection.transaction(work)

    def add_scope(self, entry_id: str, scope: str) -> None:
        """Let one more project's sessions see a scoped entry (its bank holds it too)."""
        self._connection.write("INSERT INTO entry_scopes (id, scope) SELECT id, %s FROM entries WHERE id = %s "
                    "ON CONFLICT DO NOTHING", (scope, entry_id))

    def record_recall(self, entry_ids: Sequence[str], when: datetime) -> None:
        """Increment recall_count and set last_recalled_at, atomically per row."""
        if entry_ids:
            self._connection.write("UPDATE entries SET recall_count = recall_count + 1, last_recalled_at = %s "
                        "WHERE id = ANY(%s)", (utc(when), list(entry_ids)))

    def get_many(self, entry_ids: Sequence[str]) -> list[Entry]:
        """Return the entries with these ids in the given order."""
        rows = self._connection.read(f"SELECT {COLUMNS} FROM entries WHERE id = ANY(%s)", (list(entry_ids),))
        found = {e.id: e for e in map(entry_of, rows) if e is not None}
        return [found[i] for i in entry_ids if i in found]

    def ranking_stats(self, scopes: Optional[Sequence[str]] = None) -> list[EntryStats]:
        """Return id, category and ranking counters of every entry; with `scopes`, only universal entries and
        those of these scopes."""
        if scopes is None:
            rows = self._connection.read(RANKING_SELECT)
        else:
            rows = self._connection.read(RANKING_SELECT + SCOPED, (list(scopes), list(scopes)))
        return list(map(EntryStats._make, rows))

    def source_user(self, entry_id: str) -> Optional[str]:
        """Who first wrote this entry (the OS user unless the store was given one); None when it is unknown."""
        rows = self._connection.read("SELECT source_user FROM entries WHERE id = %s", (entry_id,))
        return rows[0][0] if rows else None

    def set_metadata(self, key: str, value: str) -> None:
        """Write one `_metadata` value; pinning the vectors' width also builds their HNSW index."""
        def work(conn: Any) -> None:
            conn.execute(SET_META, (key, value))
            if key == DIMENSIONS_KEY and value.isdigit():
                ensure_hnsw_index(conn, int(value))

        self._connection.transaction(work)
