"""Fixtures that several integration modules share (the plain helpers are in tests/_helpers.py; `backend`, which
the app tests use too, is in tests/_backend.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests._backend import BACKENDS, Backend
from tests._helpers import write_active_feature


@pytest.fixture(scope="module", params=BACKENDS)
def module_backend(request):
    """`backend` for a module-scoped fixture (a server process, a populated store): one database per module run,
    its URL passed explicitly (`module_backend.env`), since a module's other tests need not share it."""
    if request.param == "sqlite":
        yield Backend("sqlite")
        return
    server = request.getfixturevalue("postgres_server")
    url = server.new_database()
    yield Backend(request.param, url)
    server.drop_database(url)


@pytest.fixture
def spare_store(request):
    """`spare_store(backend)`: the environment changes that put an app on another, empty store of `backend`'s
    kind: a second server database (dropped after the test) for PostgreSQL; none for SQLite, whose store is the
    file of whichever global store the app is given."""
    made: list[tuple] = []

    def make(of: Backend) -> dict[str, str]:
        if not of.is_postgres:
            return {}
        server = request.getfixturevalue("postgres_server")
        made.append((server, server.new_database()))
        return Backend(of.name, made[-1][1]).env

    yield make
    for server, url in made:
        server.drop_database(url)


@pytest.fixture
def run(capsys):
    """The CLI in this process: run(*args) -> (exit status, stdout, stderr)."""
    from memory_apps import cli

    def call(*args) -> tuple[int, str, str]:
        status = cli.main([str(a) for a in args])
        out, err = capsys.readouterr()
        return status, out, err
    return call


@pytest.fixture
def credential_layout(tmp_path, isolated_home):
    """(HOME, project, global store) for the secrets and permissions tests: the project's active feature is about
    credential hygiene; HOME is isolated for the library calls made in this process too."""
    project = tmp_path / "proj"
    project.mkdir()
    write_active_feature(project, "001-secrets", "credential-hygiene",
                         "# Spec\n\nKeep credentials, tokens and passwords out of notes.\n")
    return isolated_home, project, tmp_path / "G"


@pytest.fixture
def user_cache(tmp_path, monkeypatch) -> Path:
    """The user's cache directory (install-claude's backups go there)."""
    path = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(path))
    return path


@pytest.fixture
def claude_install(project, isolated_home, user_cache, capsys, monkeypatch):
    """Run `install-claude --project <project> ARGS...` in-process; `iflow-memory` is on PATH."""
    from tests.integration._claude_files import VENV_BIN, Installed, parser

    monkeypatch.setenv("PATH", os.pathsep.join([VENV_BIN, "/usr/bin", "/bin"]))

    def run(*args: str, target: Path = project) -> Installed:
        parsed = parser().parse_args(["install-claude", "--project", str(target), *args])
        code = parsed.handler(parsed)
        captured = capsys.readouterr()
        return Installed(code, captured.out, captured.err)

    return run
