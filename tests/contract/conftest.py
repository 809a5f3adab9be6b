"""Stores for the contract suites: a contract class names its `backend` ("sqlite", "postgres" or "fake") and
gets a new, empty store of it as `store`; `make_store` makes more (or differently configured) ones.

PostgreSQL comes from the `postgres_server` and `postgres_url` fixtures of tests/conftest.py.
"""

from __future__ import annotations

import pytest

from memory_adapters.store.sqlite.store import SqliteEntryStore
from tests.fakes import InMemoryEntryStore


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
            from memory_adapters.store.postgres.store import PostgresEntryStore

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
