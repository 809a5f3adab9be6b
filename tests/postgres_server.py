"""A throwaway PostgreSQL with pgvector for the tests: `pgserver` (the dev extra) runs one from the package's
own binaries in a temporary directory (as root it runs the server as a `pgserver` system user)."""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
import time
import warnings
from typing import Optional
from urllib.parse import urlsplit

TEMPLATE = "iflow_template"
# A test server holds nothing worth a crash-safe write: without fsync, a database per test costs ~30 ms.
_FAST = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server could be started here (the message names why)."""


class TestPostgres:
    """One server per test process, a migrated template database, and a fresh database per test."""

    __test__ = False  # not a test class

    def __init__(self) -> None:
        self._dir = tempfile.mkdtemp(prefix="iflow-pg-")  # short: the socket path must fit in 107 bytes
        self._server = None
        self._names = itertools.count(1)
        self.start_seconds = 0.0

    def start(self) -> "TestPostgres":
        """Start the server and build the template database; raises PostgresUnavailable."""
        started = time.monotonic()
        try:
            with warnings.catch_warnings():  # platformdirs: "XDG_RUNTIME_DIR is not set" (it falls back to /tmp)
                warnings.simplefilter("ignore")
                import pgserver
        except ImportError as exc:
            raise PostgresUnavailable(f"pgserver is not installed ({exc}): pip install -e '.[dev]'") from exc
        try:
            self._server = pgserver.get_server(self._dir, cleanup_mode="stop")
            self.start_seconds = time.monotonic() - started
            self._admin(*[f"ALTER SYSTEM SET {key} = {value}" for key, value in _FAST.items()],
                        "SELECT pg_reload_conf()", f"CREATE DATABASE {TEMPLATE}")
            from memory_adapters.store.postgres.store import PostgresEntryStore

            PostgresEntryStore(self.url(TEMPLATE)).close()  # migrated once; each test copies it
        except Exception as exc:  # noqa: BLE001 - any failure to start is a reason to skip, named
            self.stop()
            raise PostgresUnavailable(f"cannot start PostgreSQL with pgvector via pgserver: {exc}") from exc
        return self

    def url(self, database: Optional[str] = None) -> str:
        """The socket URL of a database on this server."""
        return self._server.get_uri(database)

    def _admin(self, *statements: str) -> None:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            for statement in statements:
                conn.execute(statement)

    def new_database(self, migrated: bool = True) -> str:
        """The URL of a new database: a copy of the migrated template, or (migrated=False) an empty one."""
        name = f"test_{os.getpid()}_{next(self._names)}"
        self._admin(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE if migrated else 'template0'}")
        return self.url(name)

    def drop_database(self, url: str) -> None:
        """Drop a database made by `new_database` (its connections are closed by force)."""
        self._admin(f"DROP DATABASE IF EXISTS {urlsplit(url).path.lstrip('/')} WITH (FORCE)")

    def stop(self) -> None:
        """Stop the server and remove its directory."""
        if self._server is not None:
            self._server.cleanup()
            self._server = None
        shutil.rmtree(self._dir, ignore_errors=True)
