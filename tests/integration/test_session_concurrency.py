"""Many session starts at once (three terminals, an IDE restoring tabs), and what the hook process leaves behind.

Nothing here measures time: each session must answer with entries, recalls rise exactly by what the sessions
printed, and no temp file outlives the sessions. On both stores (`backend`).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests._helpers import (
    PYTHON, TIMEOUT_S, app_env, diagnostic_line, entry_headers, run_in_process, run_injector, write_settings,
)

pytestmark = pytest.mark.slow

DEMO_PROJECT = Path(__file__).resolve().parents[2] / "examples" / "demo-project"


def _project(tmp_path: Path, provider: str) -> Path:
    import shutil

    project = tmp_path / "demo-project"
    shutil.copytree(DEMO_PROJECT, project)
    write_settings(project, embedding_provider=provider)
    return project


def _recalls(backend, store: Path) -> int:
    return backend.rows(store, "SELECT COALESCE(SUM(recall_count), 0) FROM entries")[0][0]


@pytest.mark.parametrize("provider", ["none", "local"])
def test_five_concurrent_session_starts_each_answer_and_count_recalls_exactly_once(tmp_path, isolated_home,
                                                                                   provider, backend):
    project = _project(tmp_path, provider)
    store = tmp_path / "global-store"
    first = run_injector(project, store, isolated_home, limit=5)
    assert first.returncode == 0 and entry_headers(first.stdout), first.stderr
    if provider == "local":
        assert run_in_process("memory_apps.cli", ["embed", "--project-root", project, "--global-store", store],
                              isolated_home).returncode == 0
    before = _recalls(backend, store)

    sessions = [subprocess.Popen([PYTHON, "-m", "memory_apps.injector", "--project-root", str(project),
                                  "--limit", "5", "--global-store", str(store)],
                                 env=app_env(isolated_home), cwd=str(isolated_home), stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True) for _ in range(5)]
    outputs = [session.communicate(timeout=TIMEOUT_S) for session in sessions]

    printed = 0
    for session, (out, err) in zip(sessions, outputs):
        assert session.returncode == 0, err
        assert "Traceback" not in err
        shown = entry_headers(out)
        assert shown, f"a concurrent session printed no memory: {err}"
        assert "fallback" not in diagnostic_line(out), diagnostic_line(out)
        printed += len(shown)
    assert _recalls(backend, store) - before == printed, "recalls rise by exactly the entries the sessions printed"
    leftovers = [p.name for p in store.iterdir() if ".tmp-" in p.name or p.name.startswith(".vectors-")]
    assert leftovers == []


def test_a_recall_is_counted_only_for_entries_that_fit_the_block(tmp_path, isolated_home, backend):
    """Entries the size budget drops were never shown: they are not counted as recalled."""
    project = _project(tmp_path, "none")
    write_settings(project, embedding_provider="none", injection_max_chars=1200)
    store = tmp_path / "global-store"
    run_injector(project, store, isolated_home, limit=12)  # first session: import
    before = _recalls(backend, store)

    result = run_injector(project, store, isolated_home, limit=12)

    shown = entry_headers(result.stdout)
    assert 0 < len(shown) < 12, "the budget dropped some entries"
    assert _recalls(backend, store) - before == len(shown)


def test_the_hook_deadline_counts_from_the_start_of_the_process(tmp_path):
    """Whatever the interpreter spent starting and importing counts against the session's deadline."""
    probe = ("import time; time.sleep(0.3); "
             "from memory_adapters.system_clock import process_started_at; "
             "print(time.monotonic() - process_started_at())")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=TIMEOUT_S)
    assert result.returncode == 0, result.stderr
    assert float(result.stdout) >= 0.3, "the process's age includes the time before the deadline was made"
