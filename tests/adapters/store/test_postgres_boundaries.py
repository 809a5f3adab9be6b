"""The PostgreSQL adapter's edges: the SQLite path never loads psycopg, a missing extra says how to install it,
and a server that is not there fails fast with the password masked."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading

import pytest

from memory_adapters.store.postgres.connection import masked_url
from memory_core.errors import StorageError


def test_the_core_and_the_sqlite_path_never_import_psycopg():
    code = ("import sys, memory_core.usecases, memory_adapters.store.sqlite.store, memory_adapters.vectors.numpy_vector_index; "
            "print(sorted(m for m in sys.modules if m.startswith('psycopg')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_without_the_extra_the_error_names_the_install_command(monkeypatch):
    from memory_adapters.store.postgres.store import PostgresEntryStore

    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(StorageError, match=r"pip install 'iflow-memory\[postgres\]'"):
        PostgresEntryStore("postgresql://me@localhost/memory")


def test_an_unreachable_server_is_a_storage_error_that_never_shows_the_password():
    from memory_adapters.store.postgres.store import PostgresEntryStore

    with socket.socket() as probe:  # a local port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(StorageError) as raised:
        PostgresEntryStore(f"postgresql://team:s3cret@127.0.0.1:{port}/memory", connect_timeout=2)
    assert "s3cret" not in str(raised.value) and "team:***@127.0.0.1" in str(raised.value)


class _SlowConnection:
    """A connection that arrives only when the test lets it, and records being closed."""

    def __init__(self) -> None:
        self.closed = False
        self.closing = threading.Event()

    def close(self) -> None:
        self.closed = True
        self.closing.set()


def test_a_connection_that_does_not_come_in_time_is_given_up_and_closed_when_it_comes():
    from memory_adapters.store.postgres.connection import _connect_within

    release, late = threading.Event(), _SlowConnection()
    done = threading.Event()

    def connect():
        release.wait()  # a server that has not answered yet: only the test decides when it does
        try:
            return late
        finally:
            done.set()

    with pytest.raises(TimeoutError):
        _connect_within(connect, 0.01)
    release.set()
    assert done.wait(60)
    # the helper thread closes the abandoned connection right after handing it over (60 s only against a hang)
    assert late.closing.wait(60)


def test_a_connection_that_comes_in_time_is_handed_over_open():
    from memory_adapters.store.postgres.connection import _connect_within

    ready = _SlowConnection()
    assert _connect_within(lambda: ready, 60) is ready and not ready.closed


@pytest.mark.parametrize("url, shown", [
    ("postgresql://team:s3cret@db.example:5433/memory?sslmode=require",
     "postgresql://team:***@db.example:5433/memory?sslmode=require"),
    ("postgresql://team@db.example/memory", "postgresql://team@db.example/memory"),
    ("postgresql:///memory?host=/tmp", "postgresql:///memory?host=/tmp"),
    ("postgresql://db/memory?user=team&password=s3cret&sslmode=require",
     "postgresql://db/memory?user=team&password=***&sslmode=require"),
    ("host=db user=team password=s3cret dbname=memory", "host=db user=team password=*** dbname=memory"),
])
def test_masked_url(url, shown):
    assert masked_url(url) == shown


def test_a_password_libpq_cannot_parse_never_shows_in_the_error():
    from memory_adapters.store.postgres.store import PostgresEntryStore
    from memory_core.errors import StorageError

    with pytest.raises(StorageError) as caught:
        PostgresEntryStore("postgresql://team:p%zzUnencodedSecret@127.0.0.1:1/memory", connect_timeout=2)
    assert "UnencodedSecret" not in str(caught.value) and caught.value.__cause__ is None
