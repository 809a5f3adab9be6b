"""A hook process's session start keeps its watchdog informed (issue 21): the watchdog is armed before the
settings are read, learns of every import batch, and knows whether the store is a local file or a server (only
a server is ever suspected of having stopped answering). The watchdog's own decisions are driven by a fake clock
in tests/unit/test_session_watchdog.py; here nothing is timed and no process is ended."""

from __future__ import annotations

import shutil

from memory_apps import session_watchdog
from memory_apps.session_shell import answer_session
from memory_core.deadline import Deadline, MonotonicTicker
from tests.integration._helpers import DEMO_PROJECT, entry_names, write_settings


def test_a_first_hook_session_reports_its_import_batches_and_its_answer_to_the_watchdog(tmp_path, isolated_home,
                                                                                      monkeypatch):
    project, store = tmp_path / "demo-project", tmp_path / "G"
    shutil.copytree(DEMO_PROJECT, project)
    write_settings(project, embedding_provider="none")
    armed = []
    monkeypatch.setattr(session_watchdog.SessionWatchdog, "start", lambda self: armed.append(self))
    printed: list[str] = []

    block = answer_session(str(project), str(store), None, Deadline.after(MonotonicTicker(), 60.0), printed.append,
                           watchdog=True)

    assert printed == [block] and len(entry_names(block)) == 12
    [guard] = armed
    assert guard.answered.is_set() and guard.done.is_set()
    assert guard.progress.snapshot().committed == 12, "the first import's batch was reported as committed"
    assert guard.server is False, "a local SQLite store: no server to suspect"
    ended = []
    guard._end = ended.append  # noqa: SLF001 - a watchdog must never end this test process
    assert guard.watch() is None and ended == [], "a session that finished is left alone"
