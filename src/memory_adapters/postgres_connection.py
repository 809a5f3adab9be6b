"""One PostgreSQL connection (psycopg 3, imported lazily): opened with a timeout, migrated, with short
transactions retried on deadlock or serialisation failure and psycopg's errors translated into the core's."""

from __future__ import annotations

import random
import re
import threading
import time
from datetime import datetime, timezone
from typing import Any, Callable, Optional, Sequence, TypeVar
from urllib.parse import urlsplit, urlunsplit

from memory_core.errors import StorageError

CONNECT_TIMEOUT_S = 5.0
TX_RETRIES = 5
T = TypeVar("T")


def masked_url(url: str) -> str:
    """The URL (or key=value string) with its password replaced by `***` (safe to print)."""
    url = re.sub(r"(password=)[^&\s]*", r"\1***", url)
    try:
        parts = urlsplit(url)
    except ValueError:
        return "postgresql://…"
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def psycopg_module():
    """psycopg, or a StorageError with the install hint when the extra is missing."""
    try:
        import psycopg
    except ImportError as exc:
        raise StorageError("PostgreSQL support is not installed: pip install 'iflow-memory[postgres]'") from exc
    return psycopg


def utc(when: datetime) -> datetime:
    """An aware UTC datetime to the second, as SQLite's text timestamps keep it (naive means UTC)."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc).replace(microsecond=0)


class PostgresConnection:
    """The connection every part of the PostgreSQL store shares (one per store object, guarded by a lock)."""

    def __init__(self, url: str, connect_timeout: float = CONNECT_TIMEOUT_S, keyword_search: bool = True,
                 source_user: Optional[str] = None) -> None:
        """Connect (giving up after `connect_timeout` seconds) and migrate. Raises StorageError."""
        self.url = url
        self.path = masked_url(url)  # what messages name: never the password
        self._timeout = max(1, round(connect_timeout))  # libpq takes whole seconds
        self._lock = threading.RLock()
        self._keyword_search = keyword_search
        self._source_user = source_user or _os_user()
        self._psycopg = psycopg_module()
        self._conn: Any = None
        with self._lock:
            self._connect()
            from memory_adapters.postgres_schema import migrate

            self._call(lambda: migrate(self._conn))

    def _connect(self) -> None:
        try:
            self._conn = self._psycopg.connect(self.url, connect_timeout=self._timeout, autocommit=True,
                                               application_name="iflow-memory")
        except self._psycopg.Error as exc:
            raise StorageError(f"cannot connect to PostgreSQL at {self.path}: {_first_line(exc)}") from exc

    def _live(self) -> Any:
        """The connection, opened again when the server dropped it (a restart, an idle timeout)."""
        if self._conn is None or self._conn.closed or self._conn.broken:
            self._connect()
        return self._conn

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()

    def _call(self, work: Callable[[], T]) -> T:
        try:
            return work()
        except self._psycopg.Error as exc:
            raise StorageError(f"PostgreSQL at {self.path}: {_first_line(exc)}") from exc

    def _in_tx(self, work: Callable[[Any], T]) -> T:
        """Run `work(conn)` in one short transaction; a deadlock or serialisation failure is retried."""
        errors = self._psycopg.errors
        with self._lock:
            for attempt in range(TX_RETRIES):
                try:
                    conn = self._live()
                    with conn.transaction():
                        return work(conn)
                except (errors.DeadlockDetected, errors.SerializationFailure) as exc:
                    if attempt == TX_RETRIES - 1:
                        raise StorageError(f"PostgreSQL at {self.path}: {_first_line(exc)}") from exc
                    time.sleep(0.01 * (2 ** attempt) * (1 + random.random()))
                except self._psycopg.Error as exc:
                    raise StorageError(f"write to PostgreSQL at {self.path} failed: {_first_line(exc)}") from exc
        raise AssertionError("unreachable")

    def _write(self, sql: str, params: Sequence = ()) -> int:
        """One statement in its own transaction; returns the number of rows it touched."""
        return self._in_tx(lambda conn: conn.execute(sql, params).rowcount)

    def _read(self, sql: str, params: Sequence = ()) -> list[tuple]:
        """The rows of one query (autocommit: a snapshot of its own)."""
        with self._lock:
            return self._call(lambda: self._live().execute(sql, params).fetchall())


def _first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _os_user() -> str:
    """The OS user running this process (`source_user` unless configured)."""
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"
