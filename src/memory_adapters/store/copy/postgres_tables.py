"""The PostgreSQL store's tables as a side of a copy (`tables`): entries read in `seq` pages with every column,
`source_user` and their vector (exact float32 through `vector_send`), extra scopes and staged vector; written, a
batch per transaction, exactly as given."""

from __future__ import annotations

import array
import math
import sys
from collections import defaultdict
from datetime import datetime
from typing import TYPE_CHECKING, Any, Sequence

from memory_adapters.store.postgres.connection import masked_url, psycopg_module, utc
from memory_adapters.store.postgres.rows import COLUMNS, entry_of
from memory_adapters.store.postgres.vectors import float32_bytes
from memory_adapters.store.sql.rows import ENTRY_WIDTH, anchors_json, dumps
from memory_adapters.store.copy.pages import PagedEntryRows
from memory_adapters.store.copy.tables import CopiedEntry
from memory_core.errors import StorageError

if TYPE_CHECKING:
    from memory_adapters.store.postgres.store import PostgresEntryStore

_SELECT = f"SELECT {COLUMNS}, seq, vector_send(embedding), source_user FROM entries"
_WRITTEN = ('id, name, description, reasoning, category, keywords, "references", observation_count, confidence, '
            "recall_count, last_recalled_at, created_at, updated_at, source, source_project, source_user, scope, "
            "anchors, embedding")
_VALUES = "%s, %s, %s, %s, %s, %s::jsonb, %s::jsonb, " + ", ".join(["%s"] * 10) + ", %s::jsonb, %s::vector"
WRITE = (f"INSERT INTO entries ({_WRITTEN}) VALUES ({_VALUES}) ON CONFLICT (id) DO UPDATE SET "
         + ", ".join(f"{c} = excluded.{c}" for c in _WRITTEN.split(", ")[1:]))
# Two handles on one database: same server process (its start time and port) and same database oid.
_IDENTITY = ("SELECT pg_postmaster_start_time()::text, current_setting('port'), oid::text FROM pg_database "
             "WHERE datname = current_database()")


def holds_schema(url: str, connect_timeout: float) -> bool:
    """Whether the database at `url` holds this program's tables already (a dry run must not create them)."""
    psycopg = psycopg_module()
    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=max(2, math.ceil(connect_timeout)),
                             application_name="iflow-memory") as conn:
            return bool(conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()[0])
    except psycopg.Error as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise StorageError(f"cannot connect to PostgreSQL at {masked_url(url)}: {first}") from exc


def vector_text(data: bytes) -> str:
    """Stored float32 bytes as pgvector's text input; each value's shortest repr reads back as the same float32
    (`vector_literal` without the round trip through a list of floats: twice as fast)."""
    values = array.array("f", data)
    if sys.byteorder == "big":
        values.byteswap()
    return "[" + ",".join(map(repr, values)) + "]"


def _vector(value: Any) -> Any:
    return None if value is None else float32_bytes(bytes(value))


class PostgresCopyTables(PagedEntryRows):
    """CopyTables over one PostgresEntryStore's connection (its lock, retries and error translation)."""

    keeps_source_user = True

    def __init__(self, store: "PostgresEntryStore") -> None:
        super().__init__(store, _SELECT, "seq", "%s")
        self.description = f"PostgreSQL {store.path}"  # the URL with its password masked

    def identity(self) -> tuple:
        """The server process and the database's oid."""
        return ("postgres", *self._store.connection.read(_IDENTITY)[0])

    def entries_by_id(self, ids: Sequence[str]) -> dict[str, CopiedEntry]:
        """The stored entries among these ids."""
        rows = self._store.connection.read(f"{_SELECT} WHERE id = ANY(%s)", (list(ids),)) if ids else []
        return {copied.entry.id: copied for copied in self._copied(rows)}

    def _copied(self, rows: list[tuple]) -> list[CopiedEntry]:
        ids = [row[0] for row in rows]
        scopes: dict[str, list[str]] = defaultdict(list)
        read = self._store.connection.read
        for entry_id, scope in read("SELECT id, scope FROM entry_scopes WHERE id = ANY(%s)", (ids,)):
            scopes[entry_id].append(scope)
        staged = dict(read("SELECT id, vector_send(vector) FROM staged_vectors WHERE id = ANY(%s)",
                                        (ids,)))
        copied = []
        for row in rows:
            entry = entry_of(row)
            if entry is not None:
                copied.append(CopiedEntry(entry, _vector(row[ENTRY_WIDTH + 1]), _vector(staged.get(entry.id)),
                                          tuple(sorted(scopes.get(entry.id, ()))), row[ENTRY_WIDTH + 2]))
        return copied

    def tombstones(self) -> dict[str, datetime]:
        """Every deleted entry's id and when it was deleted."""
        return dict(self._store.connection.read("SELECT id, deleted_at FROM deleted_entries"))

    def metadata(self) -> dict[str, str]:
        """Every `_metadata` value."""
        return dict(self._store.connection.read("SELECT key, value FROM _metadata"))

    def write_entries(self, entries: Sequence[CopiedEntry]) -> None:
        """Store these entries exactly as given, their scopes and staged vectors replaced, in one transaction."""
        ids = [copied.entry.id for copied in entries]

        def work(conn: Any) -> None:
            cursor = conn.cursor()
            cursor.executemany(WRITE, [_params(copied) for copied in entries])  # in the source's order
            conn.execute("DELETE FROM entry_scopes WHERE id = ANY(%s)", (ids,))
            cursor.executemany("INSERT INTO entry_scopes (id, scope) VALUES (%s, %s)",
                               [(c.entry.id, scope) for c in entries for scope in c.scopes])
            conn.execute("DELETE FROM staged_vectors WHERE id = ANY(%s)", (ids,))
            cursor.executemany("INSERT INTO staged_vectors (id, vector) VALUES (%s, %s::vector)",
                               [(c.entry.id, vector_text(c.staged))
                                for c in entries if c.staged is not None])

        self._store.connection.transaction(work)

    def write_tombstones(self, tombstones: dict[str, datetime], removable: set[str]) -> int:
        """Record these tombstones; delete the `removable` entries written before their delete (their scopes and
        staged vectors go with them)."""
        def work(conn: Any) -> int:
            removed = 0
            for entry_id, when in sorted(tombstones.items()):
                if entry_id in removable:
                    removed += conn.execute("DELETE FROM entries WHERE id = %s AND updated_at <= %s",
                                            (entry_id, utc(when))).rowcount
                conn.execute("INSERT INTO deleted_entries (id, deleted_at) VALUES (%s, %s) ON CONFLICT (id) "
                             "DO UPDATE SET deleted_at = excluded.deleted_at", (entry_id, utc(when)))
            return removed

        return self._store.connection.transaction(work)


def _params(copied: CopiedEntry) -> tuple:
    entry = copied.entry
    return (entry.id, entry.name, entry.description, entry.reasoning, entry.category, dumps(entry.keywords),
            dumps(entry.references), entry.observation_count, entry.confidence, entry.recall_count,
            entry.last_recalled_at and utc(entry.last_recalled_at), utc(entry.created_at), utc(entry.updated_at),
            entry.source, entry.source_project, copied.source_user, entry.scope, anchors_json(entry.anchors),
            None if copied.vector is None else vector_text(copied.vector))
