"""A hook process's session start keeps its watchdog informed (issue 21): the watchdog is armed before the
settings are read, learns of every import batch, and knows whether the store is a local file or a server (only
a server is ever suspected of having stopped answering). The watchdog's own decisions are driven by a fake clock
in tests/apps/test_session_watchdog.py; here nothing is timed and no process is ended."""

from __future__ import annotations

import shutil
from datetime import datetime, timezone

from memory_apps.session import watchdog as session_watchdog
from memory_apps.session.shell import answer_session
from memory_core.session.deadline import Deadline, MonotonicTicker
from tests._helpers import DEMO_PROJECT, entry_names, write_settings


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


def write_generated_bank(project, count: int) -> None:
    """A knowledge bank of `count` distinct patterns (more than one import batch)."""
    blocks = [f"### Pattern: Generated lesson {i}\nWhen parsing CSV export variant {i}, quote every field and "
              f"report the line number {i}.\n- Observation count: 1\n- Confidence: medium\n" for i in range(count)]
    bank = project / "docs" / "knowledge-bank"
    bank.mkdir(parents=True)
    (bank / "patterns.md").write_text("# Patterns\n\n" + "\n".join(blocks), encoding="utf-8")


def test_later_session_starts_resume_a_big_first_import_and_say_how_much_is_left(tmp_path, isolated_home):
    """Issue 21: with background runs off (IFLOW_MEMORY_BACKGROUND=0, as the tests run), a first import cut by
    the deadline is resumed by the next session starts, each saying `importing=N`. A machine too busy for more
    than one batch is played by a deadline already passed (every session commits at least one batch); then a
    generous deadline finishes it."""
    from tests._helpers import db_rows, diagnostic_line

    project, store = tmp_path / "big-project", tmp_path / "G"
    write_generated_bank(project, 250)
    write_settings(project, embedding_provider="none")
    busy, calm = Deadline(MonotonicTicker(), 0.0), Deadline.after(MonotonicTicker(), 60.0)

    lines = []
    for deadline in (busy, busy, calm):
        printed: list[str] = []
        answer_session(str(project), str(store), None, deadline, printed.append)
        lines.append(diagnostic_line(printed[0]))
        stored = db_rows(store / "memory.db", "SELECT COUNT(*) FROM entries")[0][0]
        if deadline is busy:
            assert f"entries from {stored} " in lines[-1] and f"importing={250 - stored}" in lines[-1], lines[-1]

    assert "importing=150" in lines[0] and "importing=50" in lines[1], "one committed batch per busy session"
    assert "importing=" not in lines[-1] and "entries from 250 " in lines[-1], lines[-1]
    assert db_rows(store / "memory.db", "SELECT COUNT(*) FROM entries") == [(250,)]


def test_the_watchdogs_markdown_block_reuses_the_bank_the_import_already_read(tmp_path, isolated_home):
    """On a busy machine reading a big bank twice (import, then fallback) cost the fallback its time."""
    from memory_apps.session.injection import InjectRequest, legacy_injection
    from memory_core.entries.knowledge import KnowledgeEntry

    parsed = [KnowledgeEntry(name="Already parsed lesson", category="patterns", description="Quote CSV fields.",
                             raw_text="### Pattern: Already parsed lesson\nQuote CSV fields.", observation_count=1,
                             position=0)]
    request = InjectRequest(str(tmp_path / "gone-project"), str(tmp_path / "G"), 20)

    block = legacy_injection(request, datetime.now(timezone.utc), "deadline reached while importing", parsed)

    assert entry_names(block) == ["Already parsed lesson"] and "deadline reached while importing" in block
