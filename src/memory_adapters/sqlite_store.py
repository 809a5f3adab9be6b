"""SqliteEntryStore: the entry store, FTS5 keyword index and vector storage in one SQLite file."""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import random
import hashlib
import re
import sqlite3
import struct
import sys
import threading
import time
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Iterable, Iterator, Optional, Sequence

from memory_core.errors import DatabaseCorrupt, StorageError
from memory_core.records import ENTRY_FIELDS, Entry, EntryStats, ImportOutcome, UpsertOutcome
from memory_adapters.sqlite_health import is_corruption, mark_verified, quick_check, verified_unchanged
from memory_adapters.sqlite_schema import ensure_fts, migrate

if TYPE_CHECKING:
    from memory_core.models import EntryDraft

BUSY_TIMEOUT_MS = 5000
QUERY_CACHE_SIZE = 256
_COLUMNS = (
    'id, name, description, reasoning, category, keywords, "references", observation_count, confidence, '
    "recall_count, last_recalled_at, created_at, updated_at, source, source_project, "
    "embedding IS NOT NULL AS has_embedding"
)
_FIELDS = [c.strip().strip('"').split(" AS ")[-1] for c in _COLUMNS.split(",")]


def fts5_compiled_in() -> bool:
    """Probe (in memory) whether this sqlite3 build has FTS5."""
    probe = sqlite3.connect(":memory:")
    try:
        probe.execute("CREATE VIRTUAL TABLE fts5_probe USING fts5(x)")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        probe.close()


def to_text(when: datetime) -> str:
    """Serialise a datetime as ISO 8601 UTC with a trailing Z."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def from_text(text: Optional[str]) -> Optional[datetime]:
    """Parse ISO 8601 (with Z, an offset or neither: naive means UTC); None when unparseable."""
    if not text:
        return None
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def _query_hash(query: str) -> str:
    """Query texts are not stored, only their hash (they may quote a spec or file names)."""
    return hashlib.sha256(query.encode("utf-8", "surrogatepass")).hexdigest()


def _dumps(values: list[str]) -> str:
    return json.dumps(values, ensure_ascii=False)


def _json_list(text: Optional[str]) -> list[str]:
    if not text:
        return []
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return []
    return [str(v) for v in value] if isinstance(value, list) else []


class SqliteEntryStore:
    """Implements EntryStore, KeywordIndex and EmbeddingStore over one SQLite database file."""

    def __init__(self, path: str, enable_fts5: bool = True, full_check: bool = False,
                 busy_timeout_ms: int = BUSY_TIMEOUT_MS, busy_retries: int = 6) -> None:
        """Open (creating if needed), check and migrate. `full_check` runs quick_check when the file changed
        since it was last verified. Raises DatabaseCorrupt (SQLite's own verdict) or StorageError."""
        self.path = path
        self._lock = threading.RLock()  # one connection, possibly shared by an MCP server's worker threads
        self._verify_after_open = False
        self._busy_timeout_ms = busy_timeout_ms
        self._busy_retries = max(1, busy_retries)
        self._conn = None  # type: ignore[assignment]
        self._fts5 = False
        for attempt in range(OPEN_RETRIES):
            try:
                self._open(path, enable_fts5, full_check)
                break
            except sqlite3.OperationalError as exc:
                self._close_quietly()
                if not _is_busy(exc) or attempt == OPEN_RETRIES - 1:
                    raise StorageError(f"cannot open {path}: {exc}") from exc
                time.sleep(0.02 * (2 ** min(attempt, 5)) * (1 + random.random()))  # another process migrates
            except DatabaseCorrupt:
                self._close_quietly()
                raise
            except sqlite3.DatabaseError as exc:
                self._close_quietly()
                if _looks_corrupt(exc):
                    raise DatabaseCorrupt(f"{path} is not a usable SQLite database: {exc}") from exc
                raise StorageError(f"cannot open {path}: {exc}") from exc
            except OSError as exc:
                raise StorageError(f"cannot open {path}: {exc}") from exc
        if full_check:
            atexit.register(self._close_at_exit)
        if not self._fts5 and enable_fts5:
            print("iflow-memory: FTS5 not available, keyword search disabled", file=sys.stderr)

    def _open(self, path: str, enable_fts5: bool, full_check: bool) -> None:
        """Connect, configure, check and migrate (raises sqlite3 errors; the caller classifies them)."""
        parent = os.path.dirname(os.path.abspath(path))
        os.makedirs(parent, mode=0o700, exist_ok=True)
        created = not os.path.exists(path)
        if created:
            # The database holds months of a user's notes: private from the first byte.
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        self._conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                                     check_same_thread=False)
        self._configure()
        self._fts5 = enable_fts5 and fts5_compiled_in()
        if full_check and not created and not verified_unchanged(path):
            problem = quick_check(self._conn)
            if problem:
                raise DatabaseCorrupt(f"{path} failed its integrity check: {problem}")
            self._verify_after_open = True
        migrate(self._conn, self._fts5)
        if self._fts5:
            ensure_fts(self._conn)
        self._fts5 = self._fts5 and self._has_fts_table()

    def _configure(self) -> None:
        self._conn.execute(f"PRAGMA busy_timeout={int(self._busy_timeout_ms)}")
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("PRAGMA cache_size=-8000")

    def _has_fts_table(self) -> bool:
        return self._conn.execute("SELECT 1 FROM sqlite_master WHERE name='entries_fts'").fetchone() is not None

    def _close_quietly(self) -> None:
        try:
            if getattr(self, "_conn", None) is not None:
                self._conn.close()
        except Exception:  # noqa: BLE001 - closing a half-open connection must not mask the real error
            pass

    def _close_at_exit(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.close()

    def close(self) -> None:
        """Close the connection (checkpointing the WAL) and remember that the file was sound."""
        self._conn.close()
        if self._verify_after_open:
            mark_verified(self.path)

    # -- writes -----------------------------------------------------------------------------
    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One short IMMEDIATE transaction; busy is retried with backoff, other errors become StorageError."""
        self._lock.acquire()
        try:
            begin_with_retry(self._conn, self._busy_retries)
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise _storage_error(self.path, exc) from exc
        finally:
            self._lock.release()

    def _write(self, sql: str, params: Sequence = ()) -> sqlite3.Cursor:
        with self._tx() as conn:
            return conn.execute(sql, params)

    def upsert(self, draft: EntryDraft, now: datetime) -> UpsertOutcome:
        """Insert, or reinforce (observation +1) and overwrite the text fields that were given."""
        given = draft.model_fields_set
        stamp = to_text(now)
        sql = """
            INSERT INTO entries (id, name, description, reasoning, category, keywords, "references",
                observation_count, confidence, recall_count, created_at, updated_at, source, source_project)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET
                name = excluded.name,
                description = excluded.description,
                reasoning = CASE WHEN ? THEN excluded.reasoning ELSE entries.reasoning END,
                keywords = CASE WHEN ? THEN excluded.keywords ELSE entries.keywords END,
                "references" = CASE WHEN ? THEN excluded."references" ELSE entries."references" END,
                confidence = CASE WHEN ? THEN excluded.confidence ELSE entries.confidence END,
                observation_count = entries.observation_count + 1,
                updated_at = excluded.updated_at
            RETURNING observation_count
        """
        params = (
            draft.entry_id, draft.name, draft.description, draft.reasoning, draft.category,
            _dumps(draft.keywords), _dumps(draft.references), draft.observation_count,
            draft.confidence, stamp, stamp, draft.source, draft.source_project,
            bool(draft.reasoning), "keywords" in given and bool(draft.keywords),
            "references" in given and bool(draft.references), "confidence" in given,
        )
        with self._tx() as conn:
            existed = conn.execute("SELECT 1 FROM entries WHERE id = ?", (draft.entry_id,)).fetchone()
            conn.execute("DELETE FROM deleted_entries WHERE id = ?", (draft.entry_id,))
            count = conn.execute(sql, params).fetchone()[0]
        return UpsertOutcome(entry_id=draft.entry_id, created=existed is None, observation_count=count)

    def import_entry(self, draft: EntryDraft, now: datetime, updated_at: Optional[datetime] = None) -> ImportOutcome:
        """Import one entry (see import_entries)."""
        return self.import_entries([(draft, updated_at)], now)[0]

    def import_entries(self, items: Sequence[tuple[EntryDraft, Optional[datetime]]],
                       now: datetime) -> list[ImportOutcome]:
        """Import a whole knowledge bank in one transaction: all of it lands, or none of it."""
        with self._tx():
            return [self._import_one(draft, now, updated_at) for draft, updated_at in items]

    def _import_one(self, draft: EntryDraft, now: datetime, updated_at: Optional[datetime]) -> ImportOutcome:
        """Insert a new imported entry, or raise its counters to the markdown's; never bump otherwise."""
        entry_id = draft.entry_id
        stamp = to_text(updated_at or now)
        if self._conn.execute("SELECT 1 FROM deleted_entries WHERE id = ?", (entry_id,)).fetchone():
            return ImportOutcome(entry_id=entry_id, status="deleted")
        row = self._conn.execute("SELECT observation_count, keywords FROM entries WHERE id = ?", (entry_id,)).fetchone()
        if row is None:
            self._conn.execute(
                """INSERT INTO entries (id, name, description, reasoning, category, keywords, "references",
                   observation_count, confidence, recall_count, created_at, updated_at, source, source_project)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, 'import', ?)""",
                (entry_id, draft.name, draft.description, draft.reasoning, draft.category, _dumps(draft.keywords),
                 _dumps(draft.references), draft.observation_count, draft.confidence, to_text(now), stamp,
                 draft.source_project),
            )
            return ImportOutcome(entry_id=entry_id, status="new")
        if draft.observation_count > (row[0] or 0):
            self._conn.execute(
                "UPDATE entries SET observation_count = ?, confidence = ?, updated_at = ? WHERE id = ?",
                (draft.observation_count, draft.confidence, stamp, entry_id),
            )
            return ImportOutcome(entry_id=entry_id, status="updated")
        if draft.keywords and not _json_list(row[1]):
            self._conn.execute("UPDATE entries SET keywords = ? WHERE id = ?", (_dumps(draft.keywords), entry_id))
            return ImportOutcome(entry_id=entry_id, status="updated")
        return ImportOutcome(entry_id=entry_id, status="unchanged")

    def delete(self, entry_id: str) -> bool:
        """Delete one entry; True when it existed."""
        with self._tx() as conn:
            conn.execute("DELETE FROM staged_vectors WHERE id = ?", (entry_id,))
            existed = conn.execute("DELETE FROM entries WHERE id = ?", (entry_id,)).rowcount > 0
            if existed:
                conn.execute("INSERT OR REPLACE INTO deleted_entries(id, deleted_at) VALUES (?, ?)",
                             (entry_id, to_text(datetime.now(timezone.utc))))
            return existed

    def record_recall(self, entry_ids: Sequence[str], when: datetime) -> None:
        """Increment recall_count and set last_recalled_at in one short transaction."""
        if not entry_ids:
            return
        marks = ",".join("?" * len(entry_ids))
        self._write(
            f"UPDATE entries SET recall_count = COALESCE(recall_count, 0) + 1, last_recalled_at = ? WHERE id IN ({marks})",
            (to_text(when), *entry_ids),
        )

    def set_metadata(self, key: str, value: str) -> None:
        """Write one `_metadata` value."""
        self._write(
            "INSERT INTO _metadata(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def set_vector(self, entry_id: str, vector: bytes) -> None:
        """Store the float32 bytes of one entry's embedding."""
        self._write("UPDATE entries SET embedding = ? WHERE id = ?", (sqlite3.Binary(vector), entry_id))

    def set_vectors(self, items: Sequence[tuple[str, bytes]]) -> None:
        """Store several embeddings in one short transaction."""
        with self._tx() as conn:
            conn.executemany("UPDATE entries SET embedding = ? WHERE id = ?",
                             [(sqlite3.Binary(vector), entry_id) for entry_id, vector in items])

    def cached_query_vector(self, space: str, query: str) -> Optional[list[float]]:
        """The vector remembered for this query text in this embedding space, or None."""
        rows = self._read("SELECT vector FROM query_vectors WHERE space = ? AND query_hash = ?",
                          (space, _query_hash(query)))
        if not rows or not isinstance(rows[0][0], bytes) or len(rows[0][0]) % 4:
            return None
        blob = rows[0][0]
        return list(struct.unpack(f"<{len(blob) // 4}f", blob))

    def cache_query_vector(self, space: str, query: str, vector: Sequence[float]) -> None:
        """Remember a query vector; keeps the newest QUERY_CACHE_SIZE of this space and drops other spaces'."""
        blob = struct.pack(f"<{len(vector)}f", *vector)
        with self._tx() as conn:
            conn.execute("INSERT OR REPLACE INTO query_vectors(space, query_hash, vector, stored_at) "
                         "VALUES (?, ?, ?, ?)", (space, _query_hash(query), sqlite3.Binary(blob), time.time()))
            conn.execute("DELETE FROM query_vectors WHERE space != ?", (space,))
            conn.execute("DELETE FROM query_vectors WHERE rowid NOT IN (SELECT rowid FROM query_vectors "
                         "ORDER BY stored_at DESC LIMIT ?)", (QUERY_CACHE_SIZE,))

    # -- reads ------------------------------------------------------------------------------
    def _read(self, sql: str, params: Sequence = ()) -> list[tuple]:
        try:
            return self._conn.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:
            if _looks_corrupt(exc):
                raise DatabaseCorrupt(f"{self.path} is corrupt: {exc}") from exc
            raise StorageError(f"read from {self.path} failed: {exc}") from exc

    def _entry(self, row: tuple) -> Optional[Entry]:
        data = dict(zip(_FIELDS, row))
        created = from_text(data["created_at"])
        updated = from_text(data["updated_at"])
        data.update(
            keywords=_json_list(data["keywords"]),
            references=_json_list(data["references"]),
            reasoning=data["reasoning"] or "",
            observation_count=data["observation_count"] or 1,
            recall_count=data["recall_count"] or 0,
            confidence=data["confidence"] or "medium",
            last_recalled_at=from_text(data["last_recalled_at"]),
            created_at=created or updated or _EPOCH,
            updated_at=updated or created or _EPOCH,
            has_embedding=bool(data["has_embedding"]),
        )
        if _trusted(data):
            # The schema's CHECK constraints already hold: no validation on the hot path.
            return Entry(**data)
        return _revalidated(data)

    def get(self, entry_id: str) -> Optional[Entry]:
        """Return one entry by id, or None."""
        rows = self._read(f"SELECT {_COLUMNS} FROM entries WHERE id = ?", (entry_id,))
        return self._entry(rows[0]) if rows else None

    def all_entries(self) -> list[Entry]:
        """Return every readable entry, without vectors."""
        entries = (self._entry(row) for row in self._read(f"SELECT {_COLUMNS} FROM entries ORDER BY rowid"))
        return [e for e in entries if e is not None]

    def get_many(self, entry_ids: Sequence[str]) -> list[Entry]:
        """Return the entries with these ids in the given order."""
        found: dict[str, Entry] = {}
        for start in range(0, len(entry_ids), 500):
            chunk = list(entry_ids[start:start + 500])
            marks = ",".join("?" * len(chunk))
            for row in self._read(f"SELECT {_COLUMNS} FROM entries WHERE id IN ({marks})", chunk):
                entry = self._entry(row)
                if entry is not None:
                    found[entry.id] = entry
        return [found[i] for i in entry_ids if i in found]

    def ranking_stats(self) -> list[EntryStats]:
        """Return id, category and ranking counters of every well-formed entry (the hot path: one query)."""
        # Answered from indexes (idx_entries_ranking, idx_entries_pending), never the rows full of vectors.
        # SQLite cleans the counters and turns the timestamp into POSIX seconds, so Python only wraps tuples.
        rows = self._read(_RANKING_SELECT)
        stats = list(map(EntryStats._make, rows))
        pending = {r[0] for r in self._read("SELECT id FROM entries WHERE embedding IS NULL")}
        if pending:
            stats = [s._replace(has_embedding=False) if s.id in pending else s for s in stats]
        return stats

    def count(self) -> int:
        """Return the number of entries."""
        return int(self._read("SELECT COUNT(*) FROM entries")[0][0])

    def get_metadata(self, key: str) -> Optional[str]:
        """Read one `_metadata` value."""
        rows = self._read("SELECT value FROM _metadata WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def vectors(self) -> Iterable[tuple[str, bytes]]:
        """Return (id, float32 bytes) for every entry that has an embedding."""
        return self._read("SELECT id, embedding FROM entries WHERE embedding IS NOT NULL")

    def vectors_after(self, rowid: int, limit: int) -> list[tuple[int, str, bytes]]:
        """(rowid, id, float32 bytes) of up to `limit` entries with a vector, in rowid order after `rowid`."""
        return self._read("SELECT rowid, id, embedding FROM entries WHERE embedding IS NOT NULL AND rowid > ? "
                          "ORDER BY rowid LIMIT ?", (rowid, limit))

    def vectors_version(self) -> str:
        """A value that changes whenever any stored vector changes (bumped by triggers)."""
        rows = dict(self._read("SELECT key, value FROM _metadata WHERE key IN ('vectors_version', 'database_id')"))
        return f"{rows.get('database_id', '')}:{rows.get('vectors_version', '')}"

    def pending_ids(self, limit: int) -> list[str]:
        """Return ids of entries still waiting for an embedding."""
        return [r[0] for r in self._read("SELECT id FROM entries WHERE embedding IS NULL LIMIT ?", (limit,))]

    # -- re-embedding (StagingVectorStore) ----------------------------------------------------
    def start_staging(self, space) -> None:
        """Drop staged vectors and record the space being built, in one transaction."""
        self._transaction([
            ("DELETE FROM staged_vectors", ()),
            *[(_SET_META, (key, value)) for key, value in _staged_keys(space)],
        ])

    def unstaged_ids(self, limit: int) -> list[str]:
        """Ids of entries that have no staged vector yet."""
        return [r[0] for r in self._read(
            "SELECT e.id FROM entries e LEFT JOIN staged_vectors s ON s.id = e.id WHERE s.id IS NULL LIMIT ?",
            (limit,))]

    def set_staged_vector(self, entry_id: str, vector: bytes) -> None:
        """Store one vector of the space being built."""
        self._write("INSERT OR REPLACE INTO staged_vectors(id, vector) SELECT id, ? FROM entries WHERE id = ?",
                    (sqlite3.Binary(vector), entry_id))

    def promote_staged(self, space) -> bool:
        """Swap the staged set in and pin its space, only if it covers every entry."""
        with self._tx() as conn:
            missing = conn.execute(
                "SELECT COUNT(*) FROM entries e LEFT JOIN staged_vectors s ON s.id = e.id WHERE s.id IS NULL"
            ).fetchone()[0]
            if missing:
                return False
            conn.execute("UPDATE entries SET embedding = (SELECT vector FROM staged_vectors s WHERE s.id = entries.id)")
            conn.execute("DELETE FROM staged_vectors")
            conn.execute("DELETE FROM query_vectors")  # query vectors of the old space must never be compared
            for key, value in (("embedding_provider", space.provider), ("embedding_model", space.model),
                               ("embedding_dimensions", str(space.dimensions))):
                conn.execute(_SET_META, (key, value))
            conn.execute("DELETE FROM _metadata WHERE key LIKE 'staged_embedding_%'")
        return True

    def _transaction(self, statements: list[tuple[str, Sequence]]) -> None:
        with self._tx() as conn:
            for sql, params in statements:
                conn.execute(sql, params)

    # -- keyword index ----------------------------------------------------------------------
    @property
    def keyword_search_available(self) -> bool:
        """Whether FTS5 is compiled in and the index exists."""
        return self._fts5

    def keyword_search(self, match_query: str, limit: int) -> dict[str, float]:
        """Run FTS5 MATCH and return {id: -bm25} (higher is more relevant)."""
        if not self._fts5:
            return {}
        try:
            # Rank inside FTS5 first, then join only the kept rows (joining every match costs a third more).
            rows = self._conn.execute(
                "SELECT e.id, hit.score FROM (SELECT rowid AS hit_rowid, bm25(entries_fts) AS score "
                "FROM entries_fts WHERE entries_fts MATCH ? ORDER BY score LIMIT ?) AS hit "
                "JOIN entries e ON e.rowid = hit.hit_rowid ORDER BY hit.score",
                (match_query, limit),
            ).fetchall()
        except sqlite3.OperationalError as exc:
            print(f"iflow-memory: keyword search failed: {exc}", file=sys.stderr)
            return {}
        return {entry_id: -score for entry_id, score in rows}

    def integrity_ok(self) -> bool:
        """Run SQLite's quick_check."""
        rows = self._read("PRAGMA quick_check")
        return bool(rows) and rows[0][0] == "ok"


_RANKING_SELECT = (
    "SELECT id, category, "
    "CASE WHEN typeof(observation_count) = 'integer' AND observation_count > 0 THEN observation_count ELSE 1 END, "
    "CASE WHEN confidence IN ('high', 'medium', 'low') THEN confidence ELSE 'medium' END, "
    "CASE WHEN typeof(recall_count) = 'integer' AND recall_count > 0 THEN recall_count ELSE 0 END, "
    # julianday() reads ISO 8601 with Z, an offset or neither (naive = UTC); unreadable -> the epoch.
    "COALESCE(ROUND((julianday(COALESCE(updated_at, created_at)) - 2440587.5) * 86400.0, 3), 0.0), "
    "1 "
    "FROM entries WHERE typeof(id) = 'text' AND category IN ('anti-patterns', 'heuristics', 'patterns')"
)

_SET_META = ("INSERT INTO _metadata(key, value) VALUES (?, ?) "
             "ON CONFLICT(key) DO UPDATE SET value = excluded.value")


def _staged_keys(space) -> list[tuple[str, str]]:
    return [("staged_embedding_provider", space.provider), ("staged_embedding_model", space.model),
            ("staged_embedding_dimensions", str(space.dimensions))]


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_ID = re.compile(r"^[0-9a-f]{16}$")
_CATEGORIES = {"anti-patterns", "patterns", "heuristics"}
_CONFIDENCES = {"high", "medium", "low"}
_SOURCES = {"retro", "session-capture", "manual", "import"}


def _revalidated(data: dict) -> Optional[Entry]:
    """A row that breaks the model's rules (edited by hand, written by an old version): validated like a new
    draft, so it is cleaned (blank-stripped, secrets redacted) or skipped with a warning."""
    from pydantic import ValidationError

    from memory_core.models import EntryDraft

    try:
        if not (isinstance(data["id"], str) and _ID.match(data["id"])):
            raise ValueError("id is not a 16-digit content hash")
        draft = EntryDraft.model_validate({k: v for k, v in data.items() if k in EntryDraft.model_fields})
    except (ValidationError, ValueError) as exc:
        reason = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
        print(f"iflow-memory: skipping unreadable entry {data.get('id')}: {reason}", file=sys.stderr)
        return None
    return Entry(**{**{k: data[k] for k in ENTRY_FIELDS if k in data}, **draft.model_dump()})


def _trusted(data: dict) -> bool:
    """True when a row already satisfies the model (the usual case), so validation can be skipped."""
    return (
        isinstance(data["id"], str) and bool(_ID.match(data["id"]))
        and isinstance(data["name"], str) and bool(data["name"].strip())
        and isinstance(data["description"], str) and bool(data["description"].strip())
        and data["category"] in _CATEGORIES and data["confidence"] in _CONFIDENCES
        and data["source"] in _SOURCES
        and isinstance(data["observation_count"], int) and data["observation_count"] >= 1
        and isinstance(data["recall_count"], int) and data["recall_count"] >= 0
    )


BUSY_RETRIES = 6
OPEN_RETRIES = 12


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def begin_with_retry(conn: sqlite3.Connection, retries: int = BUSY_RETRIES) -> None:
    """BEGIN IMMEDIATE; if still busy after the busy timeout, retry a few times with jittered backoff."""
    for attempt in range(retries):
        try:
            conn.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as exc:
            text = str(exc).lower()
            if ("locked" not in text and "busy" not in text) or attempt == retries - 1:
                raise
            time.sleep(0.02 * (2 ** attempt) * (1 + random.random()))


def _storage_error(path: str, exc: sqlite3.Error) -> StorageError:
    text = str(exc).lower()
    if _looks_corrupt(exc):
        return DatabaseCorrupt(f"{path} is corrupt: {exc}")
    if "readonly" in text or "read-only" in text:
        return StorageError(f"cannot write {path}: the file or its directory is read-only")
    if "full" in text:
        return StorageError(f"cannot write {path}: the disk is full (nothing already stored was lost)")
    return StorageError(f"write to {path} failed: {exc}")


def _looks_corrupt(exc: sqlite3.DatabaseError) -> bool:
    return is_corruption(exc)
