"""One SQLite connection: opened, configured (WAL, busy timeout), checked and migrated, with short retried
write transactions and SQLite's errors translated into the core's (corruption only on SQLite's own verdict)."""

from __future__ import annotations

import atexit
import contextlib
import errno
import os
import sqlite3
import sys
import threading
import time
from datetime import datetime, timezone
from typing import Callable, Iterator, Optional, Sequence, TypeVar

from memory_core.errors import DatabaseCorrupt, StorageError
from memory_adapters.store.sqlite.health import is_corruption, mark_verified, quick_check, verified_unchanged
from memory_adapters.store.sqlite.schema import ensure_fts, migrate, refuse_foreign

BUSY_TIMEOUT_MS = 5000
BUSY_RETRIES = 6
OPEN_RETRIES = 12
T = TypeVar("T")


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


_READ_ONLY_CODES = {8, 14}  # SQLITE_READONLY (and _DIRECTORY, _DBMOVED...), SQLITE_CANTOPEN (no -wal/-shm)
_READ_ONLY_ERRNOS = {errno.EACCES, errno.EPERM, errno.EROFS}


def read_only_reason(path: str, exc: BaseException) -> Optional[str]:
    """What is read-only when `exc` is SQLite (or the OS) refusing to write the database or create its
    `-wal`/`-shm` beside it: the store directory, the file, or one of them; None for any other error."""
    code = getattr(exc, "sqlite_errorcode", None)
    text = str(exc).lower()
    refused = (code is not None and code & 0xFF in _READ_ONLY_CODES) or getattr(exc, "errno", None) in \
        _READ_ONLY_ERRNOS or "readonly" in text or "read-only" in text or "unable to open database" in text
    if not refused:
        return None
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        return None  # nothing to be read-only yet: the OS's own reason says more
    if not os.access(directory, os.W_OK):
        return f"the store directory {directory} is read-only"
    if os.path.exists(path) and not os.access(path, os.W_OK):
        return "the database file is read-only"
    if code is not None and code & 0xFF == 14 and getattr(exc, "errno", None) is None:
        return None  # CANTOPEN with both writable: not a permission problem (a missing directory, say)
    return "the file or its directory is read-only"


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _jitter() -> float:
    """A random fraction that spreads the retries of processes waiting for the same lock."""
    import random  # only when a lock was busy: not worth its import on every session start

    return random.random()


def begin_with_retry(conn: sqlite3.Connection, retries: int = BUSY_RETRIES) -> None:
    """BEGIN IMMEDIATE; if still busy after the busy timeout, retry a few times with jittered backoff."""
    for attempt in range(retries):
        try:
            conn.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as exc:
            if not _is_busy(exc) or attempt == retries - 1:
                raise
            time.sleep(0.02 * (2 ** attempt) * (1 + _jitter()))


def _open_error(path: str, exc: BaseException) -> StorageError:
    """The StorageError for a database that cannot be opened, saying so when it is read-only."""
    reason = read_only_reason(path, exc)
    return StorageError(f"cannot open {path}: {reason}" if reason else f"cannot open {path}: {exc}")


class SqliteConnection:
    """The connection every part of the SQLite store shares (one per store object, guarded by a lock): reads,
    short write transactions, and SQLite's errors translated into the core's."""

    def __init__(self, path: str, enable_fts5: bool = True, full_check: bool = False,
                 busy_timeout_ms: int = BUSY_TIMEOUT_MS, busy_retries: int = BUSY_RETRIES) -> None:
        """Open (creating if needed), check and migrate. `full_check` runs quick_check when the file changed
        since it was last verified. Raises DatabaseCorrupt (SQLite's own verdict) or StorageError."""
        self.path = path
        self._lock = threading.RLock()  # one connection, possibly shared by an MCP server's worker threads
        self._verify_after_open = False
        self._busy_timeout_ms = busy_timeout_ms
        self._busy_retries = max(1, busy_retries)
        self._conn = None  # type: ignore[assignment]
        self._fts5 = False
        self._own_writes = 0  # PRAGMA data_version counts every connection's commits but this one's
        self.identity: Optional[tuple[int, int]] = None
        for attempt in range(OPEN_RETRIES):
            try:
                self._open(path, enable_fts5, full_check)
                break
            except sqlite3.OperationalError as exc:
                self._close_quietly()
                if is_corruption(exc):
                    raise self._corrupt(f"{path} is not a usable SQLite database: {exc}") from exc
                if not _is_busy(exc) or attempt == OPEN_RETRIES - 1:
                    raise _open_error(path, exc) from exc
                time.sleep(0.02 * (2 ** min(attempt, 5)) * (1 + _jitter()))  # another process migrates
            except DatabaseCorrupt as exc:
                self._close_quietly()
                if getattr(exc, "identity", None) is None:
                    exc.identity = self.identity  # type: ignore[attr-defined]
                raise
            except sqlite3.DatabaseError as exc:
                self._close_quietly()
                if is_corruption(exc):
                    raise self._corrupt(f"{path} is not a usable SQLite database: {exc}") from exc
                raise _open_error(path, exc) from exc
            except OSError as exc:
                raise _open_error(path, exc) from exc
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
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_NOFOLLOW, 0o600))
        self._conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                                     check_same_thread=False)
        stat = os.stat(path)
        self.identity = (stat.st_dev, stat.st_ino)  # a later quarantine moves this file, not a rebuilt one
        self._conn.execute(f"PRAGMA busy_timeout={int(self._busy_timeout_ms)}")
        if not created:
            refuse_foreign(self._conn)  # before WAL mode rewrites another program's file header
        self._configure()
        self._fts5 = enable_fts5 and fts5_compiled_in()
        if full_check and not created and not verified_unchanged(path):
            problem = quick_check(self._conn)
            if problem:
                raise self._corrupt(f"{path} failed its integrity check: {problem}")
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

    def _corrupt(self, message: str) -> DatabaseCorrupt:
        error = DatabaseCorrupt(message)
        error.identity = self.identity  # type: ignore[attr-defined]
        return error

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

    def change_token(self) -> Optional[tuple[int, int]]:
        """A value that differs whenever the database may have changed since it was last read (a commit by any
        connection or process), so what was computed from it can be kept until then; None inside a transaction."""
        with self._lock:
            if self._conn.in_transaction:
                return None
            try:
                return self._conn.execute("PRAGMA data_version").fetchone()[0], self._own_writes
            except sqlite3.Error:
                return None  # nothing is kept: the next read reports the problem

    def transaction(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run `work(conn)` in one short IMMEDIATE transaction and return its result; a busy database is retried
        with backoff before `work` runs, other errors become StorageError."""
        self._lock.acquire()
        try:
            begin_with_retry(self._conn, self._busy_retries)
            try:
                result = work(self._conn)
                self._conn.execute("COMMIT")
                return result
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise self._storage_error(exc) from exc
        finally:
            self._own_writes += 1  # even a failed commit may have written: whatever was kept is recomputed
            self._lock.release()

    def write(self, sql: str, params: Sequence = ()) -> int:
        """One statement in a transaction of its own; returns the number of rows it touched."""
        return self.transaction(lambda conn: conn.execute(sql, params).rowcount)

    def read(self, sql: str, params: Sequence = ()) -> list[tuple]:
        """The rows of one query; SQLite's errors become DatabaseCorrupt (its own verdict) or StorageError."""
        try:
            with self._lock:
                return self._conn.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:
            if is_corruption(exc):
                raise self._corrupt(f"{self.path} is corrupt: {exc}") from exc
            raise StorageError(f"read from {self.path} failed: {exc}") from exc

    @contextlib.contextmanager
    def locked(self) -> Iterator[sqlite3.Connection]:
        """The sqlite3 connection itself, under the lock, for reads that judge SQLite's errors themselves."""
        with self._lock:
            yield self._conn

    @property
    def fts5(self) -> bool:
        """Whether FTS5 is compiled in and the keyword index exists."""
        return self._fts5

    def _storage_error(self, exc: sqlite3.Error) -> StorageError:
        text = str(exc).lower()
        if is_corruption(exc):
            return self._corrupt(f"{self.path} is corrupt: {exc}")
        reason = read_only_reason(self.path, exc)
        if reason:
            return StorageError(f"cannot write {self.path}: {reason}")
        if "full" in text:
            return StorageError(f"cannot write {self.path}: the disk is full (nothing already stored was lost)")
        return StorageError(f"write to {self.path} failed: {exc}")
