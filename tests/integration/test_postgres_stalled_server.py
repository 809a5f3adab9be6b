"""A team's server that stops answering after the connection is made (a VPN drop, a laptop waking up, a frozen
VM): no client-side read timeout covers it, so the hook process's watchdog ends the session start after its
deadline, with the markdown pipeline's block printed. The hook never hangs."""

from __future__ import annotations

import shutil
import socket
import threading
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from tests._helpers import DEMO_PROJECT, entry_names, run_app, write_settings

pytestmark = pytest.mark.slow

URL_ENV = "IFLOW_MEMORY_DATABASE_URL"


class StallingProxy:
    """A Unix-socket proxy in front of the test server that passes each connection's first `forward` messages
    (the server's answers included) and then holds everything it receives."""

    def __init__(self, server_socket_dir: str, directory: Path, forward: int) -> None:
        self._target = f"{server_socket_dir}/.s.PGSQL.5432"
        self.directory = directory
        self._forward = forward
        self._listener = socket.socket(socket.AF_UNIX)
        self._listener.bind(str(directory / ".s.PGSQL.5432"))
        self._listener.listen(16)
        self._open: list[socket.socket] = [self._listener]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            server = socket.socket(socket.AF_UNIX)
            server.connect(self._target)
            self._open += [client, server]
            budget = [self._forward]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(a, b, budget), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket, budget: list) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    return
                if budget[0] <= 0:
                    continue  # held: the other side waits for ever
                budget[0] -= 1
                sink.sendall(data)
        except OSError:
            return

    def close(self) -> None:
        for sock in self._open:
            sock.close()


@pytest.fixture
def stalling_url(postgres_url, tmp_path):
    """The test database's URL through a proxy that stops passing anything once the connection is made."""
    from memory_adapters.store.postgres.store import PostgresEntryStore

    PostgresEntryStore(postgres_url).close()  # migrated: only the session's own statements go through the proxy
    parts = urlsplit(postgres_url)
    directory = tmp_path / "px"
    directory.mkdir()
    proxy = StallingProxy(parse_qs(parts.query)["host"][0], directory, forward=12)
    yield postgres_url.replace(parse_qs(parts.query)["host"][0], str(directory))
    proxy.close()


def test_a_server_that_stops_answering_leaves_the_markdown_block_and_never_hangs_the_hook(tmp_path, stalling_url):
    home, project, store = tmp_path / "home", tmp_path / "demo-project", tmp_path / "G"
    home.mkdir()
    shutil.copytree(DEMO_PROJECT, project)
    write_settings(project, embedding_provider="none")
    # The server never answers, so the deadline ends the session whatever its length: 5 s (not the suite's 60 s)
    # still lets a loaded machine start, connect and reach the stalled statement before it.
    session = run_app("memory_apps.cli", ["inject", "--project-root", project, "--global-store", store], home,
                      env={URL_ENV: stalling_url, "IFLOW_MEMORY_SESSION_DEADLINE_S": "5"})
    assert session.returncode == 0
    assert len(entry_names(session.stdout)) == 12, session.stdout + session.stderr
    assert "did not finish in time" in session.stdout and "did not finish by its deadline" in session.stderr
