"""A library host on a team's server makes a service per request (as the stress test's hosts do). PostgreSQL
refuses every client of the team past its max_connections (100 by default) with "sorry, too many clients
already": a host must hold one connection however many services it made and dropped, and none once it closed
them."""

from __future__ import annotations

import gc

import pytest

from tests._backend import URL_ENV
from tests._helpers import write_settings

pytestmark = pytest.mark.slow


def _open_connections(url: str) -> int:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute("SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() "
                            "AND application_name = 'iflow-memory'").fetchone()[0]


@pytest.fixture
def host(tmp_path, isolated_home, postgres_url, monkeypatch):
    """(global store, project) of a host whose services use the test's server database."""
    monkeypatch.setenv(URL_ENV, postgres_url)
    project = tmp_path / "app"
    project.mkdir()
    write_settings(project, embedding_provider="none")
    (tmp_path / "store").mkdir(mode=0o700)  # a host's store exists: a read of one that does not is refused
    return str(tmp_path / "store"), str(project)


def test_services_a_host_dropped_share_one_server_connection(host, postgres_url):
    from memory_apps import MemoryService

    collecting = gc.isenabled()
    gc.disable()  # however long the cycle collector waits, as in a busy host
    try:
        for _ in range(30):
            service = MemoryService(global_store=host[0], project_root=host[1])
            service.search("retries", limit=5)
        del service
        assert _open_connections(postgres_url) == 1
    finally:
        if collecting:
            gc.enable()


def test_closed_services_hold_no_server_connection(host, postgres_url):
    from memory_apps import MemoryService

    with MemoryService(global_store=host[0], project_root=host[1]) as first:
        first.remember("Retry with backoff", "Retry idempotent calls with exponential backoff and jitter.")
        second = MemoryService(global_store=host[0], project_root=host[1])
        assert [hit.entry.name for hit in second.search("backoff retries").selected] == ["Retry with backoff"]
        second.close()
        assert _open_connections(postgres_url) == 1  # the first service still uses it
    assert _open_connections(postgres_url) == 0
