"""The store a test's apps use: the SQLite file of the global store (the default) or a database on the test
PostgreSQL server (`IFLOW_MEMORY_DATABASE_URL`). The `backend` fixture (here, shared by the integration and app
tests through tests/conftest.py's `pytest_plugins`) and `module_backend` (tests/integration/conftest.py) run a test
once per store; the test reads the store back through `Backend.rows` and asks `Backend.holds_store` where a
SQLite test looked for memory.db."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any, Optional, Sequence

import pytest

from tests import _helpers
from tests._helpers import db_rows

URL_ENV = "IFLOW_MEMORY_DATABASE_URL"
BACKENDS = ("sqlite", "postgresql")


@dataclass(frozen=True)
class Backend:
    """One store kind; `url` is the PostgreSQL database's (None for SQLite)."""

    name: str
    url: Optional[str] = None

    @property
    def is_postgres(self) -> bool:
        """Whether the entries live on the PostgreSQL server."""
        return self.url is not None

    @property
    def env(self) -> dict[str, str]:
        """The environment changes that put an app on this store."""
        return {URL_ENV: self.url} if self.url else {}

    def rows(self, store: Path, sql: str, params: Sequence = ()) -> list[tuple]:
        """Rows of a query on the store of global store `store`, written as for SQLite (`?` placeholders); from
        PostgreSQL, JSON columns and times come back as SQLite holds them (JSON text, ISO 8601 text) and whole
        numbers as ints."""
        if self.url is None:
            return db_rows(store / "memory.db", sql, params)
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            fetched = conn.execute(sql.replace("?", "%s"), tuple(params)).fetchall()
        return [tuple(_as_sqlite(value) for value in row) for row in fetched]

    def holds_store(self, store: Path) -> bool:
        """Whether the store of global store `store` is where this backend keeps it: memory.db is a file for
        SQLite; for PostgreSQL no memory.db appeared beside the markdown (the entries are on the server)."""
        if self.url is None:
            return (store / "memory.db").is_file()
        return not (store / "memory.db").exists()

    def location(self, store: Path) -> str:
        """Where an app says the entries are (`import` prints it): memory.db's path, or the URL as the store
        names it (password masked)."""
        if self.url is None:
            return str(store / "memory.db")
        from memory_adapters.store.postgres.connection import masked_url

        return masked_url(self.url)


@pytest.fixture(params=BACKENDS)
def backend(request, monkeypatch) -> Backend:
    """Runs the test once per store: the SQLite file, then a fresh database on the test PostgreSQL server. The
    apps the test starts through _helpers (run_app, run_in_process, run_module, app_env) use that store; code the
    test calls in this process sees the URL only where the test sets it (`backend.env`)."""
    chosen = Backend(request.param, request.getfixturevalue("postgres_url") if request.param != "sqlite" else None)
    monkeypatch.setattr(_helpers, "BACKEND_ENV", chosen.env)
    return chosen


def _as_sqlite(value: Any) -> Any:
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    if isinstance(value, Decimal) and value == value.to_integral_value():
        return int(value)
    if isinstance(value, datetime):  # SQLite holds UTC times as 2026-01-31T12:00:00Z
        return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
    return value
