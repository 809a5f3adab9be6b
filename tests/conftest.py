"""Shared test setup: no test may open a network connection; fixture paths from ../shared; a throwaway PostgreSQL;
the stores the contract and adapter tests make (`make_store`); the per-store `backend` of the integration and app
tests (tests/_backend.py, loaded as a plugin).

PostgreSQL runs on one throwaway server per test process (pytest-xdist workers each start their own), with a
database per test copied from a migrated template. Where no server can start, the PostgreSQL tests skip with
the reason; with IFLOW_MEMORY_REQUIRE_POSTGRES=1 (CI) they fail instead."""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import tempfile
from pathlib import Path

import pytest

from tests.postgres_server import PostgresUnavailable, TestPostgres

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SHARED = PROJECT_ROOT.parent / "shared"
FIXTURES = SHARED / "fixtures"
_DATABASE_URL = "IFLOW_MEMORY_DATABASE_URL"  # a developer's team server is never a test's

# A module of fixtures rather than fixtures here: tests/_backend.py needs tests/_helpers.py, which imports this file.
pytest_plugins = ["tests._backend"]


class NetworkBlocked(RuntimeError):
    """Raised when a test tries to reach the network."""


def _is_local(address) -> bool:
    if isinstance(address, tuple) and address:
        host = str(address[0])
        return host in ("127.0.0.1", "::1", "localhost") or host.startswith("127.")
    return isinstance(address, (str, bytes))  # unix sockets


@pytest.fixture(autouse=True)
def _no_network(monkeypatch):
    """Fail loudly on any connection that leaves this machine."""
    real_connect = socket.socket.connect

    def guarded_connect(self, address):
        if not _is_local(address):
            raise NetworkBlocked(f"test tried to reach the network: {address!r}")
        return real_connect(self, address)

    def guarded_getaddrinfo(host, *args, **kwargs):
        if host not in (None, "localhost", "127.0.0.1", "::1"):
            raise NetworkBlocked(f"test tried to resolve {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    real_getaddrinfo = socket.getaddrinfo
    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket, "getaddrinfo", guarded_getaddrinfo)
    yield


def shared_fixture(*parts: str) -> Path:
    """Path to a file under ../shared/fixtures, skipping the test with a reason when it is absent."""
    path = FIXTURES.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} not present: clone iflow-memory with ../shared beside it to run this test")
    return path


@pytest.fixture
def fixtures_dir() -> Path:
    """The ../shared/fixtures directory (skips when absent)."""
    return shared_fixture()


@pytest.fixture
def isolated_home(tmp_path, monkeypatch) -> Path:
    """A temporary HOME so nothing touches the developer's ~/.claude: for code run in this process, the isolation
    subprocess_env gives a child (its cache directory under that HOME, no API keys)."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    for key in [k for k in os.environ if k.endswith("_API_KEY") or k == _DATABASE_URL]:
        monkeypatch.delenv(key)
    return home


def subprocess_env(home: Path) -> dict:
    """Environment for app subprocesses: temp HOME, no API keys, no database URL."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != _DATABASE_URL}
    env["HOME"] = str(home)
    env["XDG_CACHE_HOME"] = str(home / ".cache")  # install-claude's backups stay in the test's HOME
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


# No test may leave a detached background embedder running.
os.environ["IFLOW_MEMORY_BACKGROUND"] = "0"
# Every session start the suite makes (a hook process, `inject`, the library's `session`) gets the longest deadline
# the product accepts instead of 2 s, so that a loaded machine cannot cut a first import short or turn a ranking
# into a fallback: the hook's speed is measured in benchmarks/. A test about the deadline sets its own value
# (`IFLOW_MEMORY_SESSION_DEADLINE_S` in the app's environment; `_helpers.PRODUCT_DEADLINE` restores the default).
SESSION_DEADLINE_ENV = "IFLOW_MEMORY_SESSION_DEADLINE_S"
os.environ[SESSION_DEADLINE_ENV] = "60"
# The prompt and file hooks likewise (their default is 1 s), and none of them starts a warm process that would
# outlive its test: the warm process's own tests start and stop theirs.
HOOK_DEADLINE_ENV = "IFLOW_MEMORY_HOOK_DEADLINE_S"
os.environ[HOOK_DEADLINE_ENV] = "60"
os.environ["IFLOW_MEMORY_WARM"] = "off"

# Code run in this process outside `isolated_home` keeps the local model's optimised copy (one per user, ~90 MB)
# in one temporary cache directory for the whole run: built once, never in the developer's ~/.cache.
_RUN_CACHE = tempfile.mkdtemp(prefix="iflow-memory-tests-cache-")
os.environ["XDG_CACHE_HOME"] = _RUN_CACHE
atexit.register(shutil.rmtree, _RUN_CACHE, True)


LINK_TARGET_TEXT = "-----BEGIN OPENSSH PRIVATE KEY-----\nnot a real key\n"
"""What the private file a planted link points at holds (see `victim`)."""


@pytest.fixture
def victim(tmp_path) -> Path:
    """A private file outside any store, the target of a link an attacker plants where the product writes."""
    path = tmp_path / "outside" / "id_rsa"
    path.parent.mkdir()
    path.write_text(LINK_TARGET_TEXT, encoding="utf-8")
    path.chmod(0o600)
    return path


@pytest.fixture
def project(tmp_path) -> Path:
    """An empty project directory (`tmp_path/app`); test modules that need a richer project define their own."""
    path = tmp_path / "app"
    path.mkdir()
    return path


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
            from tests.fakes import InMemoryEntryStore

            return InMemoryEntryStore(keyword_search=keyword_search)
        if backend == "sqlite":
            from memory_adapters.store.sqlite.store import SqliteEntryStore

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
