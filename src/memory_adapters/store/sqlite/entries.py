"""The entry rows of the SQLite store: writes merged by the core's rules inside one short transaction, reads
straight from the table (the ranking fields from an index)."""

from __future__ import annotations

import functools
import sqlite3
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Optional, Sequence

from memory_adapters.store.sql.lifecycle_rows import entry_from_json
from memory_adapters.store.sql.rows import row_entry
from memory_adapters.store.sqlite.connection import SqliteConnection, to_text
from memory_adapters.store.sqlite.rows import COLUMNS, RANKING_SELECT, SET_META, WRITE_ENTRY, entry_params
from memory_core.entries.merge import imported, reinforced
from memory_core.entries.records import Entry, EntryStats, ImportOutcome, UpsertOutcome

if TYPE_CHECKING:
    from memory_adapters.store.sqlite.outbox import SqliteMarkdownOutbox
    from memory_core.entries.models import EntryDraft


RETIRED_OR_ALIASED = "SELECT 1 FROM retired_entries WHERE id = ? UNION ALL SELECT 1 FROM entry_aliases WHERE old_id = ?"


def stored_entry(conn: sqlite3.Connection, entry_id: str) -> Optional[Entry]:
    """The stored entry with this id, read inside the caller's transaction (None: none, or unreadable)."""
    row = conn.execute(f"SELECT {COLUMNS} FROM entries WHERE id = ?", (entry_id,)).fetchone()
    return row_entry(row) if row else None


def remove_entry(conn: sqlite3.Connection, entry_id: str) -> bool:
    """Delete one entry with its extra scopes and staged vector; True when it existed."""
    conn.execute("DELETE FROM staged_vectors WHERE id = ?", (entry_id,))
    conn.execute("DELETE FROM entry_scopes WHERE id = ?", (entry_id,))
    return conn.execute("DELETE FROM entries WHERE id = ?", (entry_id,)).rowcount > 0


class SqliteTombstoneRows:
    """TombstoneRows in SQLite: an entry too malformed to read is left for the import to skip."""

    def written_at(self, conn: sqlite3.Connection, entry_id: str) -> Optional[datetime]:
        """When the stored entry was last written; None when no readable entry is stored."""
        existing = stored_entry(conn, entry_id)
        return existing.updated_at if existing is not None else None

    def as_stored(self, when: datetime) -> datetime:
        """The tombstone's time as it is."""
        return when

    def remove(self, conn: sqlite3.Connection, entry_id: str) -> int:
        """Delete the entry with its scopes and staged vector."""
        remove_entry(conn, entry_id)
        return 1

    def keep(self, conn: sqlite3.Connection, entry_id: str, when: datetime) -> None:
        """Record the tombstone unless one is recorded already."""
        conn.execute("INSERT OR IGNORE INTO deleted_entries(id, deleted_at) VALUES (?, ?)", (entry_id, to_text(when)))


class SqliteEntries:
    """The writes of EntryStore, get_many and the ranking fields over the `entries`, `entry_scopes`,
    `deleted_entries` and `_metadata` tables; every write of an entry tells the outbox in its transaction."""

    def __init__(self, connection: SqliteConnection, outbox: "SqliteMarkdownOutbox") -> None:
        self._connection = connection
        self._outbox = outbox
        # (change token, {scopes: ranking stats}) of the last reads, valid while the token stays the same.
        self._kept_stats: Optional[tuple[tuple[int, int], dict]] = None

    def upsert(self, draft: "EntryDraft", now: datetime) -> UpsertOutcome:
        """Insert, or reinforce (observation +1) and overwrite the text fields that were given."""
        def work(conn: sqlite3.Connection) -> tuple[Optional[Entry], Entry]:
            existing = stored_entry(conn, draft.entry_id)
            entry = reinforced(existing, draft, now)
            conn.execute("DELETE FROM deleted_entries WHERE id = ?", (entry.id,))
            conn.execute(WRITE_ENTRY, entry_params(entry))
            self._outbox.entry_written(conn, entry, "record")
            return existing, entry

        existing, entry = self._connection.transaction(work)
        return UpsertOutcome(entry_id=entry.id, created=existing is None, observation_count=entry.observation_count)

    def import_entries(self, items: Sequence[tuple["EntryDraft", Optional[datetime]]],
                       now: datetime) -> list[ImportOutcome]:
        """Import a batch of markdown entries in one transaction: all of it lands, or none of it."""
        def work(conn: sqlite3.Connection) -> list[ImportOutcome]:
            outcomes = []
            for draft, updated_at in items:
                if conn.execute(RETIRED_OR_ALIASED, (draft.entry_id, draft.entry_id)).fetchone():
                    outcomes.append(ImportOutcome(entry_id=draft.entry_id, status="retired"))
                    continue  # retired, or edited into a newer id: an import never brings it back
                deleted = conn.execute("SELECT 1 FROM deleted_entries WHERE id = ?", (draft.entry_id,)).fetchone()
                status, entry = imported(stored_entry(conn, draft.entry_id), draft, now, updated_at,
                                         deleted is not None)
                if entry is not None:
                    conn.execute(WRITE_ENTRY, entry_params(entry))
                outcomes.append(ImportOutcome(entry_id=draft.entry_id, status=status))
            return outcomes

        return self._connection.transaction(work)

    def delete(self, entry_id: str) -> bool:
        """Delete one entry, live or retired, with the aliases that lead to or from it, and keep its tombstone;
        True when it existed."""
        def work(conn: sqlite3.Connection) -> bool:
            existing = stored_entry(conn, entry_id)
            existed = remove_entry(conn, entry_id)
            retired = conn.execute("SELECT entry FROM retired_entries WHERE id = ?", (entry_id,)).fetchone()
            if retired is not None:
                conn.execute("DELETE FROM retired_entries WHERE id = ?", (entry_id,))
                existed = True
                found = entry_from_json(retired[0])
                existing = existing or (found[0] if found else None)
            conn.execute("DELETE FROM entry_aliases WHERE old_id = ? OR new_id = ?", (entry_id, entry_id))
            if existed:
                conn.execute("INSERT OR REPLACE INTO deleted_entries(id, deleted_at) VALUES (?, ?)",
                             (entry_id, to_text(datetime.now(timezone.utc))))
                if existing is not None:
                    self._outbox.entry_written(conn, existing, "forget")
            return existed

        return self._connection.transaction(work)

    def set_scope(self, entry_id: str, scope: Optional[str]) -> bool:
        """Change which projects' sessions see an entry (None: every project's); False when it is unknown."""
        def work(conn: sqlite3.Connection) -> bool:
            existing = stored_entry(conn, entry_id)
            if existing is None:
                return False
            entry = existing.with_changes(scope=scope)
            conn.execute(WRITE_ENTRY, entry_params(entry))
            self._outbox.entry_written(conn, entry, "record")
            return True

        return self._connection.transaction(work)

    def add_scope(self, entry_id: str, scope: str) -> None:
        """Let one more project's sessions see a scoped entry (its bank holds it too)."""
        self._connection.write("INSERT OR IGNORE INTO entry_scopes(id, scope) SELECT id, ? FROM entries WHERE id = ?",
                    (scope, entry_id))

    def record_recall(self, entry_ids: Sequence[str], when: datetime) -> None:
        """Increment recall_count and set last_recalled_at in one short transaction."""
        if not entry_ids:
            return
        marks = ",".join("?" * len(entry_ids))
        self._connection.write(f"UPDATE entries SET recall_count = COALESCE(recall_count, 0) + 1, last_recalled_at = ? "
                    f"WHERE id IN ({marks})", (to_text(when), *entry_ids))

    def get_many(self, entry_ids: Sequence[str]) -> list[Entry]:
        """Return the entries with these ids in the given order."""
        found: dict[str, Entry] = {}
        for start in range(0, len(entry_ids), 500):
            chunk = list(entry_ids[start:start + 500])
            marks = ",".join("?" * len(chunk))
            for row in self._connection.read(f"SELECT {COLUMNS} FROM entries WHERE id IN ({marks})", chunk):
                entry = row_entry(row)
                if entry is not None:
                    found[entry.id] = entry
        return [found[i] for i in entry_ids if i in found]

    def ranking_stats(self, scopes: Optional[Sequence[str]] = None) -> list[EntryStats]:
        """Return id, category and ranking counters of every well-formed entry (the hot path: one query);
        with `scopes`, only universal entries and those of these scopes."""
        # A long-running host searches again and again: the list is kept until any connection commits.
        token, key = self._connection.change_token(), None if scopes is None else tuple(scopes)
        kept = self._kept_stats
        if token is not None and kept is not None and kept[0] == token and key in kept[1]:
            return list(kept[1][key])
        stats = self._read_ranking_stats(scopes)
        if token is not None:
            by_scopes = kept[1] if kept is not None and kept[0] == token and len(kept[1]) < 8 else {}
            by_scopes[key] = stats
            self._kept_stats = (token, by_scopes)
        return list(stats)

    def _read_ranking_stats(self, scopes: Optional[Sequence[str]]) -> list[EntryStats]:
        # Answered from indexes (idx_entries_ranking, idx_entries_pending), never the rows full of vectors.
        # SQLite cleans the counters and turns the timestamp into POSIX seconds, so Python only wraps tuples.
        if scopes is None:
            rows = self._connection.read(RANKING_SELECT)
        else:
            marks = ",".join("?" * len(scopes))
            rows = self._connection.read(f"{RANKING_SELECT} AND (scope IS NULL OR scope IN ({marks}) OR id IN "
                              f"(SELECT id FROM entry_scopes WHERE scope IN ({marks})))", (*scopes, *scopes))
        # The query has exactly EntryStats' fields: tuple.__new__ builds each one in C (`_make` is a Python call
        # per row, a few ms at 10k entries).
        stats = list(map(functools.partial(tuple.__new__, EntryStats), rows))
        pending = {r[0] for r in self._connection.read("SELECT id FROM entries WHERE embedding IS NULL")}
        if pending:
            stats = [s._replace(has_embedding=False) if s.id in pending else s for s in stats]
        return stats

    def set_metadata(self, key: str, value: str) -> None:
        """Write one `_metadata` value."""
        self._connection.write(SET_META, (key, value))
