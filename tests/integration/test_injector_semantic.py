"""The semantic injector end to end: a realistic project, recall tracking (AC3), limits, a first import
interrupted. The first session's import, the ranking and the recall counts run on both stores (`backend`); what
prints nothing, or prints every entry, does so before or whatever the store, so those stay SQLite's."""

from __future__ import annotations

import json
import re
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from tests.conftest import shared_fixture
from tests._backend import Backend
from tests._helpers import (
    TIMEOUT_S, app_env, copy_bank, db_rows, diagnostic_line, entries_per_section, entry_headers, make_realistic_project,
    run_in_process, run_injector, run_module, write_settings,
)

pytestmark = pytest.mark.slow

TITLE = "## Engineering Memory (from knowledge bank)"
HEAD_ENTRIES = 265  # `### ` blocks of head's three category files outside HTML comments


@pytest.fixture
def head_bank():
    return shared_fixture("knowledge-bank", "head")


def test_realistic_project_gets_a_ranked_balanced_block(tmp_path, isolated_home, head_bank, backend):
    project = make_realistic_project(tmp_path / "parser-app", head_bank)
    write_settings(project, embedding_provider="none")  # no embedding provider: keyword + prominence
    store = tmp_path / "global-store"
    store.mkdir()

    # The first session imports the whole bank within the suite's session deadline (tests/conftest.py); a first
    # import cut short is the interrupted-import tests' point.
    result = run_module("memory_apps.injector", ["--project-root", project, "--global-store", store, "--limit", "20"],
                        isolated_home)

    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith(TITLE + "\n\n")
    assert out.endswith("\n---\n")
    assert out.count(TITLE) == 1 and out.count("\n---\n") == 1, "nothing but one block on stdout"
    assert "iflow-memory:" not in out and "Traceback" not in out, "logs belong on stderr"

    diagnostic = diagnostic_line(out)
    assert diagnostic.startswith("*Memory:") and diagnostic.endswith("*")
    fts5 = re.search(r"fts5=(\d+)", diagnostic)
    assert fts5 and int(fts5.group(1)) > 0, diagnostic
    assert "semantic: active" not in diagnostic, "no embedding provider: semantic must not claim to be active"
    assert f"from {HEAD_ENTRIES}" in diagnostic
    assert 'context: "parser-hardening' in diagnostic

    assert len(entry_headers(out)) == 20
    sections = entries_per_section(out)
    assert set(sections) == {"### Anti-Patterns to Avoid", "### Heuristics", "### Patterns to Follow"}
    assert all(count >= 3 for count in sections.values()), sections
    assert backend.holds_store(store)
    assert backend.rows(store, "SELECT COUNT(*) FROM entries")[0][0] == HEAD_ENTRIES


def test_three_injections_count_three_recalls(tmp_path, isolated_home, head_bank, backend):
    """AC3: after 3 injection cycles every injected entry has recall_count 3 and the latest timestamp."""
    project = make_realistic_project(tmp_path / "parser-app", head_bank)
    # no embedding provider (keyword + prominence) and no size budget, so every entry is injected
    write_settings(project, embedding_provider="none", injection_max_chars=0)
    store = tmp_path / "global-store"
    store.mkdir()

    for _ in range(3):
        result = run_injector(project, store, isolated_home, limit=-1)
        assert result.returncode == 0, result.stderr
        assert len(entry_headers(result.stdout)) == HEAD_ENTRIES

    tracking = json.loads((store / ".last-injection.json").read_text(encoding="utf-8"))
    assert tracking["entries_injected"] == HEAD_ENTRIES
    assert tracking["project"] == "parser-app"
    rows = backend.rows(store, "SELECT id, recall_count, last_recalled_at FROM entries")
    assert len(rows) == HEAD_ENTRIES
    assert {(count, when) for _, count, when in rows} == {(3, tracking["timestamp"])}


@pytest.mark.parametrize("via_cli", [False, True], ids=["injector", "cli-inject"])
@pytest.mark.parametrize("how", ["injection-disabled", "limit-0"])
def test_disabled_or_zero_limit_prints_nothing(tmp_path, isolated_home, head_bank, how, via_cli):
    project = tmp_path / "proj"
    project.mkdir()
    copy_bank(head_bank, project)
    store = tmp_path / "global-store"
    store.mkdir()
    if how == "injection-disabled":
        write_settings(project, injection_enabled=False)
        limit = 20
    else:
        limit = 0

    result = run_injector(project, store, isolated_home, limit=limit, via_cli=via_cli)

    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert not (store / ".last-injection.json").exists()


@pytest.mark.parametrize("semantic", [True, False], ids=["semantic", "markdown"])
def test_limit_minus_one_injects_every_entry(tmp_path, isolated_home, head_bank, semantic):
    project = tmp_path / "proj"
    project.mkdir()
    copy_bank(head_bank, project)
    write_settings(project, semantic_enabled=semantic, injection_max_chars=0)  # 0: no size budget
    store = tmp_path / "global-store"
    store.mkdir()

    result = run_injector(project, store, isolated_home, limit=-1)

    assert result.returncode == 0, result.stderr
    assert len(entry_headers(result.stdout)) == HEAD_ENTRIES
    tracking = json.loads((store / ".last-injection.json").read_text(encoding="utf-8"))
    assert tracking["entries_injected"] == HEAD_ENTRIES


def _count_or_zero(db, backend: Backend = Backend("sqlite")) -> int:
    if backend.is_postgres:
        return backend.rows(db.parent, "SELECT COUNT(*) FROM entries")[0][0]
    try:
        return db_rows(db, "SELECT COUNT(*) FROM entries")[0][0]
    except sqlite3.Error:  # not created yet, or the schema is not there yet
        return 0


def _pause_mid_import(process, db, backend: Backend = Backend("sqlite")) -> bool:
    """Wait until `process` has committed part of its first-run import, then stop it (SIGSTOP).

    Returns False when no half-done import was ever observable (the process finished first).
    """
    deadline = time.monotonic() + TIMEOUT_S  # only against a hang: the process's end also ends the wait
    while process.poll() is None and time.monotonic() < deadline:
        if 0 < _count_or_zero(db, backend) < HEAD_ENTRIES:
            process.send_signal(signal.SIGSTOP)
            return True
        time.sleep(0.0005)
    return False


def _start_injector(project, store, home):
    return subprocess.Popen(
        [sys.executable, "-m", "memory_apps.injector", "--project-root", str(project), "--limit", "20",
         "--global-store", str(store)],
        env=app_env(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _fresh_store_beside_a_bank(tmp_path, head_bank):
    """(project holding the real bank with keyword ranking only, an empty global store, its database path)."""
    project = tmp_path / "proj"
    project.mkdir()
    copy_bank(head_bank, project)
    write_settings(project, embedding_provider="none")
    store = tmp_path / "global-store"
    store.mkdir()
    return project, store, store / "memory.db"


def test_session_starting_during_the_first_import_answers_from_what_is_committed(tmp_path, isolated_home, head_bank):
    """A first import runs in committed batches; a session that starts meanwhile answers at once from them.

    Session A starts on a fresh store and imports the knowledge bank. As soon as part of it is committed, A is
    paused (as a slow disk or a busy machine would) and session B starts. B does not wait for A's import, does
    not import the same bank again, and says that the import is running elsewhere. A, resumed, finishes the import
    or, past its deadline, stops after its current batch and says how much is left; the background run
    (`maintain`) finishes it. (The suite's deadline is long, so the machine's speed decides neither answer.)
    """
    project, store, db = _fresh_store_beside_a_bank(tmp_path, head_bank)

    session_a = _start_injector(project, store, isolated_home)
    session_b = None
    paused = _pause_mid_import(session_a, db)
    try:
        if paused:
            session_b = _start_injector(project, store, isolated_home)
            out_b, err_b = session_b.communicate(timeout=TIMEOUT_S)
    finally:
        if paused:
            session_a.send_signal(signal.SIGCONT)
    out_a, err_a = session_a.communicate(timeout=TIMEOUT_S)
    assert session_a.returncode == 0, err_a
    assert len(entry_headers(out_a)) == 20, "A answers from the batches it committed"
    if session_b is not None:
        assert session_b.returncode == 0, err_b
        assert "importing=elsewhere" in diagnostic_line(out_b), diagnostic_line(out_b)
        assert entry_headers(out_b), "B answered from the committed batches, not with nothing"
    if _count_or_zero(db) < HEAD_ENTRIES:
        assert "importing=" in diagnostic_line(out_a), diagnostic_line(out_a)
    finished = run_in_process("memory_apps.cli", ["maintain", "--project-root", project, "--global-store", store],
                              isolated_home)
    assert finished.returncode == 0, finished.stderr
    assert _count_or_zero(db) == HEAD_ENTRIES
    later = run_injector(project, store, isolated_home, limit=20)
    assert f"from {HEAD_ENTRIES}" in diagnostic_line(later.stdout)
    assert "importing" not in diagnostic_line(later.stdout)


def test_an_interrupted_first_import_is_completed_later(tmp_path, isolated_home, head_bank, backend):
    """The hook is killed at its timeout; the next session must still end up with every markdown entry.

    AC8: on first run all existing markdown entries are imported. A first run killed half-way (the
    session-start hook has a 3 s budget) must not leave the store permanently holding part of the bank.
    """
    project, store, db = _fresh_store_beside_a_bank(tmp_path, head_bank)

    first = _start_injector(project, store, isolated_home)
    paused = _pause_mid_import(first, db, backend)
    first.kill()  # the hook's timeout
    first.communicate(timeout=TIMEOUT_S)
    if not paused:
        return  # the import was never observable half-done, so a kill could not leave it half-done
    partial = _count_or_zero(db, backend)
    assert 0 < partial < HEAD_ENTRIES

    result = run_injector(project, store, isolated_home, limit=20)

    assert result.returncode == 0, result.stderr
    resumed = _count_or_zero(db, backend)
    assert resumed > partial, "the next session resumes the import (at least one more committed batch)"
    remaining = re.search(r"importing=(\d+)", diagnostic_line(result.stdout))
    assert resumed + (int(remaining.group(1)) if remaining else 0) == HEAD_ENTRIES, diagnostic_line(result.stdout)
    if remaining:  # the deadline came first: the background run finishes it
        run_in_process("memory_apps.cli", ["maintain", "--project-root", project, "--global-store", store],
                       isolated_home)
    assert _count_or_zero(db, backend) == HEAD_ENTRIES


def test_default_provider_first_session_prints_a_truthful_block(tmp_path, isolated_home, head_bank):
    """With the default settings (auto provider: the local model when installed) a session start, first run
    included, prints only the block, with a truthful diagnostic line. (How long it takes is measured in
    `benchmarks/`, never asserted here: the deadline itself is tested with fakes in tests/unit.)"""
    project = make_realistic_project(tmp_path / "parser-app", head_bank)
    store = tmp_path / "global-store"
    store.mkdir()

    result = run_injector(project, store, isolated_home, limit=20)

    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(TITLE + "\n\n") and result.stdout.endswith("\n---\n")
    assert len(entry_headers(result.stdout)) == 20
    diagnostic = diagnostic_line(result.stdout)
    assert "semantic: active" not in diagnostic or "model: none" not in diagnostic, diagnostic
    assert re.search(r"semantic: (active|degraded|off) \(", diagnostic), diagnostic
