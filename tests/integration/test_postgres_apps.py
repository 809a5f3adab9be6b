"""The apps against a PostgreSQL server (IFLOW_MEMORY_DATABASE_URL), as a team uses them: several machines (here
several HOMEs and global stores) share one memory; the password never shows; a silent server costs a session
start its semantic ranking, never its memory block."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests._helpers import (
    DEMO_PROJECT, SEMANTIC_ACTIVE, diagnostic_line, entry_names, every_file_text, model_env, run_app, upsert_args, write_settings,
)
from tests._learnings import learning

pytestmark = pytest.mark.slow

URL_ENV = "IFLOW_MEMORY_DATABASE_URL"
SECRET = "Team-Pa55word"


def with_password(url: str) -> str:
    """The same database with a password in the URL (the test server trusts local sockets: it is not checked)."""
    parts = urlsplit(url)
    user = parts.username or "postgres"
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, f"{user}:{SECRET}@{host}", parts.path, parts.query, parts.fragment))


def markdown_of(machine) -> str:
    """Every markdown file of one machine: its global store and its project's bank."""
    _, project, store = machine
    return "".join(text for path, text in every_file_text(store, project / "docs").items() if path.endswith(".md"))


@pytest.fixture
def machine(tmp_path):
    """`machine(name)`: (home, project, global store) of one engineer's machine, the demo project checked out."""
    def make(name: str, provider: str = "none"):
        root = tmp_path / name
        home, project, store = root / "home", root / "demo-project", root / "G"
        home.mkdir(parents=True)
        shutil.copytree(DEMO_PROJECT, project)
        write_settings(project, embedding_provider=provider)
        return home, project, store
    return make


def test_import_then_session_start_rank_from_the_server_and_leave_no_sqlite_file(machine, postgres_url):
    home, project, store = machine("alice")
    env = {URL_ENV: with_password(postgres_url)}
    imported = run_app("memory_apps.cli", ["import", "--project-root", project, "--global-store", store, "--json"],
                       home, env=env)
    assert imported.returncode == 0, imported.stderr
    report = json.loads(imported.stdout)
    assert report["new"] > 0 and report["database"].startswith("postgresql://") and SECRET not in report["database"]
    session = run_app("memory_apps.cli", ["inject", "--project-root", project, "--global-store", store], home,
                      env=env)
    assert session.returncode == 0, session.stderr
    assert entry_names(session.stdout) and "fts5=" in diagnostic_line(session.stdout)
    assert not (store / "memory.db").exists()
    assert SECRET not in session.stdout + session.stderr + imported.stderr


def test_what_one_machine_learns_reaches_another_machines_session(machine, postgres_url):
    alice, bob = machine("alice"), machine("bob")
    env = {URL_ENV: postgres_url}
    entry = learning("Quote CSV fields", "Quote CSV fields that contain delimiters, quotes or line breaks.",
                     "Unquoted commas shifted every column of the export.")
    written = run_app("memory_apps.writer", upsert_args(alice[2], alice[1], entry), alice[0], env=env)
    assert written.returncode == 0, written.stderr
    session = run_app("memory_apps.cli", ["inject", "--project-root", bob[1], "--global-store", bob[2]], bob[0],
                      env=env)
    assert "Quote CSV fields" in entry_names(session.stdout)
    found = run_app("memory_apps.cli", ["search", "quote csv delimiters", "--global-store", bob[2],
                                        "--project-root", bob[1], "--json"], bob[0], env=env)
    assert found.returncode == 0, found.stderr
    assert "Quote CSV fields" in [hit["name"] for hit in json.loads(found.stdout)]
    assert not (alice[2] / "memory.db").exists() and not (bob[2] / "memory.db").exists()
    # Each machine's markdown audit trail holds what that machine wrote: bob's processes never replay alice's.
    assert "Quote CSV fields" in markdown_of(alice)
    assert "Quote CSV fields" not in markdown_of(bob)


def test_doctor_and_the_diagnostics_show_the_url_with_its_password_masked(machine, postgres_url):
    home, project, store = machine("alice")
    store.mkdir()
    doctor = run_app("memory_apps.cli", ["doctor", "--project-root", project, "--global-store", store],
                     home, env={URL_ENV: with_password(postgres_url)})
    database = next(line for line in doctor.stdout.splitlines() if "database:" in line)
    assert database.startswith("ok") and "postgresql://postgres:***@" in database
    assert SECRET not in doctor.stdout + doctor.stderr


def test_a_server_that_does_not_answer_leaves_the_markdown_block_and_says_why(machine, tmp_path):
    home, project, store = machine("alice")
    silent = f"postgresql://team:{SECRET}@/memory?host={tmp_path / 'no-server-here'}"
    session = run_app("memory_apps.cli", ["inject", "--project-root", project, "--global-store", store], home,
                      env={URL_ENV: silent})
    assert session.returncode == 0
    assert entry_names(session.stdout), "the markdown pipeline answers when the database cannot"
    assert "database unavailable" in session.stdout and "PostgreSQL" in session.stderr
    assert SECRET not in session.stdout + session.stderr


def test_a_url_of_another_database_kind_is_refused_by_name(machine):
    home, project, store = machine("alice")
    refused = run_app("memory_apps.cli", ["import", "--project-root", project, "--global-store", store],
                      home, env={URL_ENV: f"mysql://team:{SECRET}@db/memory"})
    assert refused.returncode == 2 and "postgresql://" in refused.stderr and SECRET not in refused.stderr


def test_the_local_model_ranks_by_meaning_against_the_server(machine, postgres_url, tmp_path):
    home, project, store = machine("alice", provider="local")
    env = {URL_ENV: postgres_url, **model_env(tmp_path)}
    for command in (["import"], ["maintain"]):
        done = run_app("memory_apps.cli", [*command, "--project-root", project, "--global-store", store], home,
                       env=env)
        assert done.returncode == 0, done.stderr
    session = run_app("memory_apps.cli", ["inject", "--project-root", project, "--global-store", store], home,
                      env=env)
    assert SEMANTIC_ACTIVE.search(diagnostic_line(session.stdout)), session.stdout[:600] + session.stderr


def test_the_readme_try_out_server_starts_serves_a_session_and_stops(machine, tmp_path):
    home, project, store = machine("alice")
    script = Path(__file__).resolve().parents[2] / "scripts" / "local_postgres.py"
    directory = tmp_path / "pg"  # a short path: the server's socket lives in it
    started = subprocess.run([sys.executable, str(script), str(directory)], capture_output=True, text=True,
                             timeout=120)
    assert started.returncode == 0, started.stderr
    url = started.stdout.strip()
    try:
        assert url.startswith("postgresql://") and str(directory) in url
        again = subprocess.run([sys.executable, str(script), str(directory)], capture_output=True, text=True,
                               timeout=120)
        assert again.stdout.strip() == url  # a second call finds the running server
        session = run_app("memory_apps.cli", ["inject", "--project-root", project, "--global-store", store], home,
                          env={URL_ENV: url})
        assert len(entry_names(session.stdout)) == 12 and "imported 12 new entries" in session.stderr
    finally:
        stopped = subprocess.run([sys.executable, str(script), str(directory), "--stop"], capture_output=True,
                                 text=True, timeout=120)
    assert stopped.returncode == 0, stopped.stderr
