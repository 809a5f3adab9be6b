"""Stores for the contract suites: a contract class names its `backend` ("sqlite", "postgres" or "fake") and
gets a new, empty store of it as `store`; `make_store` (tests/conftest.py, shared with the adapter tests) makes
more (or differently configured) ones.

PostgreSQL comes from the `postgres_server` and `postgres_url` fixtures of tests/conftest.py.
"""

from __future__ import annotations

import pytest


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
