"""The SQLite store's tables as a side of a copy (`tables`): entries read in rowid pages with every column and
their vector, extra scopes and staged vector; written, a batch per transaction, exactly as given."""

from __future__ import annotations

import os
import sqlite3
from collections import defaultdict
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Optional, Sequence

from memory_adapters.store.sql.rows import ENTRY_WIDTH, anchors_json, dumps, from_text, row_entry
from memory_adapters.store.sqlite.connection import to_text
from memory_adapters.store.sqlite.rows import COLUMNS, blob
from memory_adapters.store.copy.pages import PagedEntryRows
from memory_adapters.store.copy.tables import CopiedEntry

if TYPE_CHECKING:
    from memory_adapters.store.sqlite.store import SqliteEntryStore

CHUNK = 500  # ids per `IN (…)`
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_SELECT = f"SELECT {COLUMNS}, rowid, embedding FROM entries"
_WRITTEN = ('id, name, description, reasoning, category, keywords, "references", observation_count, confidence, '
            "recall_count, last_recalled_at, created_at, updated_at, source, source_project, scope, anchors, embedding")
WRITE = (f"INSERT INTO entries ({_WRITTEN}) VALUES ({', '.join('?' * 18)}) ON CONFLICT(id) DO UPDATE SET "
         + ", ".join(f"{c} = excluded.{c}" for c in _WRITTEN.split(", ")[1:]))


def float32_or_none(value: Any) -> Optional[bytes]:
    """A stored vector's bytes; None for no vector or bytes that are not whole float32 values."""
    if isinstance(value, (bytes, bytearray, memoryview)) and len(value) and not len(value) % 4:
        return bytes(value)
    return None


class SqliteCopyTables(PagedEntryRows):
    """CopyTables over one SqliteEntryStore's connection (its lock, retries and error translation)."""

    keeps_source_user = False

    def __init__(self, store: "SqliteEntryStore") -> None:
        super().__init__(store, _SELECT, "rowid", "?")
        self.description = f"SQLite {store.path}"

    def identity(self) -> tuple:
        """The file's device and inode."""
        stat = os.stat(self._store.path)
        return ("sqlite", stat.st_dev, stat.st_ino)

    def entries_by_id(self, ids: Sequence[str]) -> dict[str, CopiedEntry]:
        """The stored entries among these ids."""
        rows = []
        for start in range(0, len(ids), CHUNK):
            chunk = list(ids[start:start + CHUNK])
            rows += self._store.connection.read(f"{_SELECT} WHERE id IN ({','.join('?' * len(chunk))})", chunk)
        return {copied.entry.id: copied for copied in self._copied(rows)}

    def _copied(self, rows: list[tuple]) -> list[CopiedEntry]:
        ids = [row[0] for row in rows]
        scopes: dict[str, list[str]] = defaultdict(list)
        staged: dict[str, Any] = {}
        for start in range(0, len(ids), CHUNK):
            chunk = ids[start:start + CHUNK]
            marks = ",".join("?" * len(chunk))
            read = self._store.connection.read
            for entry_id, scope in read(f"SELECT id, scope FROM entry_scopes WHERE id IN ({marks})", chunk):
                scopes[entry_id].append(scope)
            staged.update(read(f"SELECT id, vector FROM staged_vectors WHERE id IN ({marks})", chunk))
        copied = []
        for row in rows:
            entry = row_entry(tuple(row[:ENTRY_WIDTH]))
            if entry is not None:
                copied.append(CopiedEntry(entry, float32_or_none(row[ENTRY_WIDTH + 1]), float32_or_none(staged.get(entry.id)),
                                          tuple(sorted(scopes.get(entry.id, ()))), None))
        return copied

    def tombstones(self) -> dict[str, datetime]:
        """Every deleted entry's id and when it was deleted."""
        return {entry_id: from_text(when) or _EPOCH
                for entry_id, when in self._store.connection.read("SELECT id, deleted_at FROM deleted_entries")}

    def metadata(self) -> dict[str, str]:
        """Every `_metadata` value."""
        return {key: str(value) for key, value in self._store.connection.read("SELECT key, value FROM _metadata")}

    def write_entries(self, entries: Sequence[CopiedEntry]) -> None:
        """Store these entries exactly as given, their scopes and staged vectors replaced, in one transaction."""
        ids = [(copied.entry.id,) for copied in entries]

        def work(conn: sqlite3.Connection) -> None:
            conn.executemany(WRITE, [_params(copied) for copied in entries])
            conn.executemany("DELETE FROM entry_scopes WHERE id = ?", ids)
            conn.executemany("INSERT INTO entry_scopes (id, scope) VALUES (?, ?)",
                             [(c.entry.id, scope) for c in entries for scope in c.scopes])
            conn.executemany("DELETE FROM staged_vectors WHERE id = ?", ids)
            conn.executemany("INSERT INTO staged_vectors (id, vector) VALUES (?, ?)",
                             [(c.entry.id, blob(c.staged)) for c in entries if c.staged is not None])

        self._store.connection.transaction(work)

    def write_tombstones(self, tombstones: dict[str, datetime], removable: set[str]) -> int:
        """Record these tombstones; delete the `removable` entries written before their delete."""
        def work(conn: sqlite3.Connection) -> int:
            removed = 0
            for entry_id, when in tombstones.items():
                row = conn.execute("SELECT updated_at FROM entries WHERE id = ?", (entry_id,)).fetchone()
                if entry_id in removable and row is not None and (from_text(row[0]) or _EPOCH) <= when:
                    for table in ("staged_vectors", "entry_scopes", "entries"):
                        conn.execute(f"DELETE FROM {table} WHERE id = ?", (entry_id,))
                    removed += 1
                conn.execute("INSERT INTO deleted_entries (id, deleted_at) VALUES (?, ?) ON CONFLICT(id) "
                             "DO UPDATE SET deleted_at = excluded.deleted_at", (entry_id, to_text(when)))
            return removed

        return self._store.connection.transaction(work)


def _params(copied: CopiedEntry) -> tuple:
    entry = copied.entry
    return (entry.id, entry.name, entry.description, entry.reasoning, entry.category, dumps(entry.keywords),
            dumps(entry.references), entry.observation_count, entry.confidence, entry.recall_count,
            entry.last_recalled_at and to_text(entry.last_recalled_at), to_text(entry.created_at),
            to_text(entry.updated_at), entry.source, entry.source_project, entry.scope, anchors_json(entry.anchors),
            None if copied.vector is None else blob(copied.vector))
