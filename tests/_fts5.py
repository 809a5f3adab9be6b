"""An in-memory FTS5 table for the tests that run sanitised queries through a real MATCH."""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from typing import Iterator, Sequence

import pytest


@contextmanager
def fts5_table(columns: str, rows: Sequence[tuple[str, ...]]) -> Iterator[sqlite3.Connection]:
    """A connection holding the FTS5 table `t(columns)` filled with `rows`; skips the test without FTS5."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute(f"CREATE VIRTUAL TABLE t USING fts5({columns})")
    except sqlite3.OperationalError:  # pragma: no cover - depends on the Python build
        conn.close()
        pytest.skip("this sqlite3 build has no FTS5")
    conn.executemany(f"INSERT INTO t VALUES ({', '.join('?' * len(rows[0]))})", rows)
    try:
        yield conn
    finally:
        conn.close()
