"""One PostgreSQL connection (psycopg 3, imported lazily): opened with a timeout, migrated, with short
transactions retried on deadlock or serialisation failure and psycopg's errors translated into the core's."""

from __future__ import annotations

import math
import os
import random
import re
import threading
import time
from datetime import datetime, timezone
from typing import Any, Callable, Optional, Sequence, TypeVar
from urllib.parse import unquote

from memory_adapters.store.postgres.schema import migrate
from memory_core.errors import StorageError

CONNECT_TIMEOUT_S = 5.0
TX_RETRIES = 5
T = TypeVar("T")


_PASSWORD_PARAMETER = re.compile(r"(?i)(\b(?:ssl)?password\s*=\s*)('(?:[^'\\]|\\.)*'|[^&\s]*)")


def masked_url(url: str) -> str:
    """The URL (or key=value string) with its password replaced by `***` (safe to print): everything between
    `user:` and the last `@` before the query, whatever it holds, and every `password=` value, quoted or not."""
    url = _PASSWORD_PARAMETER.sub(r"\1***", url)
    scheme, found, rest = url.partition("://")
    if not found:
        return url
    end = rest.find("?") if "?" in rest else len(rest)
    at = rest.rfind("@", 0, end)
    if at < 0 or ":" not in rest[:at]:
        return url
    return f"{scheme}://{rest[:at].split(':', 1)[0]}:***{rest[at:]}"


def url_secrets(url: str) -> list[str]:
    """The password of the URL as written and decoded, and its `password=` values: what an error message quoting
    the URL (libpq's parse errors do) must never show."""
    secrets = []
    _, _, rest = url.partition("://")
    end = rest.find("?") if "?" in rest else len(rest)
    at = rest.rfind("@", 0, end)
    if at >= 0 and ":" in rest[:at]:
        raw = rest[:at].split(":", 1)[1]
        secrets += [raw, unquote(raw)]
    for match in _PASSWORD_PARAMETER.finditer(url):
        value = match.group(2).strip("'")
        secrets += [value, unquote(value)]
    return sorted({s for s in secrets if s}, key=len, reverse=True)


def scrubbed(text: str, url: str) -> str:
    """`text` with every secret of `url` replaced by `***`."""
    for secret in url_secrets(url):
        text = text.replace(secret, "***")
    return text


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


class SharedConnection:
    """One server connection for every store object of a process with the same URL and options: a host that
    makes a store per request (and leaves dropped ones to the cycle collector) holds one connection, not one per
    store, so a team's server never runs out of them. Its lock serialises the stores' statements."""

    _open: dict[tuple, "SharedConnection"] = {}
    _open_lock = threading.Lock()

    def __init__(self, key: tuple) -> None:
        self.key = key
        self.lock = threading.RLock()
        self.conn: Any = None
        self.users = 0

    @classmethod
    def acquire(cls, url: str, statement_timeout_ms: int) -> "SharedConnection":
        """The process's shared connection for these settings (a new process never shares its parent's)."""
        key = (url, statement_timeout_ms, os.getpid())
        with cls._open_lock:
            shared = cls._open.setdefault(key, cls(key))
            shared.users += 1
            return shared

    def release(self) -> None:
        """One store is done with it; the last one closes the connection."""
        with SharedConnection._open_lock:
            self.users -= 1
            if self.users > 0:
                return
            SharedConnection._open.pop(self.key, None)
        with self.lock:
            if self.conn is not None:
                self.conn.close()
                self.conn = None


class PostgresConnection:
    """The connection every part of the PostgreSQL store uses: the process's shared one for its URL, with reads,
    short transactions retried on deadlock or serialisation failure, and psycopg's errors translated."""

    def __init__(self, url: str, connect_timeout: float = CONNECT_TIMEOUT_S, statement_timeout_ms: int = 0) -> None:
        """Connect (giving up after `connect_timeout` seconds, fractions too) and migrate; `statement_timeout_ms`
        (0: none) makes the server cancel any longer statement. Raises StorageError."""
        self.url = url
        self.path = masked_url(url)  # what messages name: never the password
        self._connect_timeout = max(float(connect_timeout), 0.05)
        self._statement_timeout_ms = max(int(statement_timeout_ms), 0)
        self._psycopg = psycopg_module()
        self._shared: Optional[SharedConnection] = SharedConnection.acquire(url, self._statement_timeout_ms)
        self._lock = self._shared.lock
        try:
            with self._lock:
                conn = self._live()
                self._call(lambda: migrate(conn))
        except BaseException:
            self.close()
            raise

    @property
    def _conn(self) -> Any:
        return self._shared.conn if self._shared is not None else None

    def _connect(self) -> None:
        """Open the connection within the connect timeout. libpq waits 2 s at the least, so a shorter timeout
        (a session start's) waits for the connection on a helper thread and gives up at its own time."""
        if self._shared is None:
            raise StorageError(f"the store of PostgreSQL at {self.path} is closed")
        options = {"autocommit": True, "application_name": "iflow-memory",
                   "connect_timeout": max(2, math.ceil(self._connect_timeout))}
        if self._statement_timeout_ms:
            options["options"] = f"-c statement_timeout={self._statement_timeout_ms}"
        try:
            if self._connect_timeout >= 2:
                self._shared.conn = self._psycopg.connect(self.url, **options)
            else:
                self._shared.conn = _connect_within(lambda: self._psycopg.connect(self.url, **options),
                                                    self._connect_timeout)
        except self._psycopg.Error as exc:
            why = scrubbed(_first_line(exc), self.url)  # libpq's parse errors quote the URL's parts
            raise StorageError(f"cannot connect to PostgreSQL at {self.path}: {why}") from None
        except TimeoutError:
            raise StorageError(f"cannot connect to PostgreSQL at {self.path}: no answer within "
                               f"{self._connect_timeout:.2g} s") from None

    def _live(self) -> Any:
        """The connection, opened again when the server dropped it (a restart, an idle timeout)."""
        if self._conn is None or self._conn.closed or self._conn.broken:
            self._connect()
        return self._conn

    def close(self) -> None:
        """Let go of the shared connection (closed when no other store of this process uses it); idempotent."""
        shared, self._shared = self._shared, None
        if shared is not None:
            shared.release()

    def _call(self, work: Callable[[], T]) -> T:
        try:
            return work()
        except self._psycopg.Error as exc:
            raise StorageError(f"PostgreSQL at {self.path}: {scrubbed(_first_line(exc), self.url)}") from exc

    def transaction(self, work: Callable[[Any], T]) -> T:
        """Run `work(conn)` in one short transaction and return its result; a deadlock or serialisation failure
        runs it again (with backoff), other errors become StorageError."""
        errors = self._psycopg.errors
        with self._lock:
            for attempt in range(TX_RETRIES):
                try:
                    conn = self._live()
                    with conn.transaction():
                        return work(conn)
                except (errors.DeadlockDetected, errors.SerializationFailure) as exc:
                    if attempt == TX_RETRIES - 1:
                        raise StorageError(f"PostgreSQL at {self.path}: {scrubbed(_first_line(exc), self.url)}") from exc
                    time.sleep(0.01 * (2 ** attempt) * (1 + random.random()))
                except self._psycopg.Error as exc:
                    why = scrubbed(_first_line(exc), self.url)
                    raise StorageError(f"write to PostgreSQL at {self.path} failed: {why}") from exc
        raise AssertionError("unreachable")

    def write(self, sql: str, params: Sequence = ()) -> int:
        """One statement in its own transaction; returns the number of rows it touched."""
        return self.transaction(lambda conn: conn.execute(sql, params).rowcount)

    def read(self, sql: str, params: Sequence = ()) -> list[tuple]:
        """The rows of one query (autocommit: a snapshot of its own)."""
        with self._lock:
            return self._call(lambda: self._live().execute(sql, params).fetchall())


def _connect_within(connect: Callable[[], Any], seconds: float) -> Any:
    """The connection `connect` opens on a daemon thread, or TimeoutError after `seconds` (a connection that
    comes after that is closed by the thread)."""
    lock = threading.Lock()
    done = threading.Event()
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            conn, error = connect(), None
        except BaseException as exc:  # noqa: BLE001 - handed over to the waiting thread
            conn, error = None, exc
        with lock:
            late = conn if outcome.get("abandoned") else None
            if late is None:
                outcome.update(conn=conn, error=error)
            done.set()
        if late is not None:
            late.close()

    threading.Thread(target=run, name="postgres-connect", daemon=True).start()
    done.wait(seconds)
    with lock:
        if not done.is_set():
            outcome["abandoned"] = True
            raise TimeoutError
    if outcome["error"] is not None:
        raise outcome["error"]
    return outcome["conn"]


def _first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
