"""Stores for the contract suites: a contract class names its `backend` ("sqlite", "postgres" or "fake") and
gets a new, empty store of it as `store`; `make_store` makes more (or differently configured) ones.

PostgreSQL runs on one throwaway server per test process (pytest-xdist workers each start their own), with a
database per test copied from a migrated template. Where no server can start, the PostgreSQL tests skip with
the reason; with IFLOW_MEMORY_REQUIRE_POSTGRES=1 (CI) they fail instead.
"""

from __future__ import annotations

import os

import pytest

from memory_adapters.sqlite_store import SqliteEntryStore
from tests.fakes import InMemoryEntryStore
from tests.postgres_server import PostgresUnavailable, TestPostgres


@pytest.fixture(scope="session")
def postgres_server():
    """One PostgreSQL server for this test process, stopped at its end."""
    server = TestPostgres()
    try:
        server.start()
    except PostgresUnavailable as exc:
        if os.environ.get("IFLOW_MEMORY_REQUIRE_POSTGRES") == "1":
            pytest.fail(str(exc))
        pytest.skip(str(exc))
    yield server
    server.stop()


@pytest.fixture
def postgres_url(postgres_server):
    """The URL of a new database holding the migrated schema, dropped after the test."""
    url = postgres_server.new_database()
    yield url
    postgres_server.drop_database(url)


@pytest.fixture
def make_store(request, tmp_path):
    """`make_store(backend, keyword_search=True)`: a store of that backend; the same backend again opens the same
    database (a reopen); every store is closed after the test."""
    made = []
    urls: dict = {}

    def make(backend: str, keyword_search: bool = True):
        if backend == "fake":
            return InMemoryEntryStore(keyword_search=keyword_search)
        if backend == "sqlite":
            store = SqliteEntryStore(str(tmp_path / "memory.db"), enable_fts5=keyword_search)
        elif backend == "postgres":
            from memory_adapters.postgres_store import PostgresEntryStore

            if "url" not in urls:
                urls["url"] = request.getfixturevalue("postgres_url")
            store = PostgresEntryStore(urls["url"], keyword_search=keyword_search)
        else:
            raise ValueError(f"unknown backend {backend!r}")
        made.append(store)
        return store

    yield make
    for store in made:
        store.close()


@pytest.fixture
def backend(request):
    """The test class's store `backend`, unless the class parametrises it."""
    return request.cls.backend


@pytest.fixture
def store(backend, make_store):
    """A new, empty store of the test's backend."""
    return make_store(backend)


@pytest.fixture
def service():
    """The fake server a remote embedder talks to; None for local ones (the remote suites override it)."""
    return None


@pytest.fixture
def llm():
    """The fake server an LLM keyword tier talks to; None for the others (the LLM suites override it)."""
    return None
