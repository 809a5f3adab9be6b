"""The injection journal as the real hooks write it (ADR 27): the session-start, prompt and file hook processes
each leave one record (hook, session, project, diagnostic, what was shown and why), and a hook whose journal cannot
be written answers exactly as before."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from memory_adapters.shared_work.file_injection_journal import FileInjectionJournal
from memory_adapters.system_clock import SystemClock
from tests._helpers import PYTHON, TIMEOUT_S, app_env, git, run_in_process, run_module

pytestmark = pytest.mark.slow

DEMO_PROJECT = Path(__file__).resolve().parents[2] / "examples" / "demo-project"
CITED = "src/ingest/csv_reader.py"


@pytest.fixture
def world(tmp_path):
    """The demo project, its bank imported into a store, plus one learning citing CITED."""
    home, project, store = tmp_path / "home", tmp_path / "demo-project", tmp_path / "store"
    home.mkdir(exist_ok=True)  # isolated_home's, when a test asks for it too
    shutil.copytree(DEMO_PROJECT, project)
    cite = {"name": "Never split CSV rows by hand",
            "description": "Quoted fields hold commas and line breaks: read rows with the csv module.",
            "category": "anti-patterns", "references": [f"{CITED}:40"]}
    for args in (["import"], ["write", "--entry-json", json.dumps(cite)]):
        done = run_in_process("memory_apps.cli", [*args, "--project-root", project, "--global-store", store], home)
        assert done.returncode == 0, done.stderr
    return home, project, store


def run_hook(world, kind: str, event: dict, session: str = "sess-1") -> subprocess.CompletedProcess:
    home, project, store = world
    payload = {"session_id": session, "transcript_path": "/dev/null", "cwd": str(project), **event}
    env = app_env(home, {"CLAUDE_PROJECT_DIR": str(project)})
    done = subprocess.run([PYTHON, "-m", "memory_apps.cli", "hook", kind, "--global-store", str(store)],
                          input=json.dumps(payload), capture_output=True, text=True, timeout=TIMEOUT_S, env=env,
                          cwd=str(project))
    assert done.returncode == 0, done.stderr
    return done


def journal(world) -> FileInjectionJournal:
    return FileInjectionJournal(str(world[2]), SystemClock())


def test_each_hook_leaves_a_record_of_what_it_showed_and_why(world):
    start = run_hook(world, "session-start", {"hook_event_name": "SessionStart", "source": "startup"})
    run_hook(world, "pre-tool-use", {"hook_event_name": "PreToolUse", "tool_name": "Read",
                                     "tool_input": {"file_path": CITED}}, session="sess-2")
    run_hook(world, "user-prompt-submit", {"hook_event_name": "UserPromptSubmit",
                                           "prompt": "zzzzqqq xkcdvv token=ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"})
    records = {r.hook: r for r in journal(world).recent()}
    assert set(records) == {"session-start", "file", "prompt"}
    # the session start showed the CSV learning already: another session's file hook shows it
    assert [records[h].session_id for h in ("session-start", "file", "prompt")] == ["sess-1", "sess-2", "sess-1"]
    assert {r.project for r in records.values()} == {"demo-project"}

    began = records["session-start"]
    printed = json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    assert began.diagnostic and began.diagnostic in printed
    assert len(began.shown) >= 12 and all(len(m.entry_id) == 16 for m in began.shown)
    assert all(m.name in printed for m in began.shown)
    assert all("prominence" in m.signals for m in began.shown)
    if "semantic: active" in began.diagnostic:  # the local model compared vectors: each carries its meaning
        assert all("meaning" in m.signals for m in began.shown)
    assert all(0 <= v <= 1 for m in began.shown for v in m.signals.values())

    read = records["file"]
    assert read.trigger == CITED and read.diagnostic.startswith("*Memory: 1 for " + CITED)
    assert [m.name for m in read.shown] == ["Never split CSV rows by hand"]
    assert read.shown[0].signals == {"references": 1.0}
    assert read.shown[0].mark == "", "the cited file is not in the demo's tree: no anchor, nothing checked"

    asked = records["prompt"]  # nothing in the bank answers it: recorded, shown empty, and why
    assert asked.shown == () and asked.diagnostic.endswith("| nothing over the floor*")
    assert asked.trigger.startswith("zzzzqqq xkcdvv") and "ghp_A1b2" not in asked.trigger


def test_a_file_hook_with_nothing_new_records_that_it_was_shown_already(world):
    run_hook(world, "session-start", {"hook_event_name": "SessionStart", "source": "startup"})
    done = run_hook(world, "pre-tool-use", {"hook_event_name": "PreToolUse", "tool_name": "Read",
                                            "tool_input": {"file_path": CITED}})
    assert done.stdout.strip() == "", "the session start showed the CSV learning: nothing new to say"
    [read] = journal(world).recent(session_id="sess-1", limit=1)
    assert read.hook == "file" and read.shown == ()
    assert read.diagnostic.endswith("| already shown in this session: 1*"), read.diagnostic
    run_hook(world, "pre-tool-use", {"hook_event_name": "PreToolUse", "tool_name": "Read",
                                     "tool_input": {"file_path": "README.md"}}, session="sess-5")
    [other] = journal(world).recent(session_id="sess-5")
    assert other.shown == () and other.diagnostic.endswith("| no memory cites it*"), other.diagnostic


def test_a_checked_current_citation_is_recorded_as_current(world):
    home, project, store = world
    (project / "src/parse").mkdir(parents=True)
    (project / "src/parse/dates.py").write_text("def parse(text):\n    return text\n", encoding="utf-8")
    git(project, "init", "-q", "-b", "main")
    git(project, "add", ".")
    git(project, "commit", "-qm", "the parser")
    cite = {"name": "Dates arrive in three formats", "description": "Try ISO first, then the two legacy ones.",
            "category": "patterns", "references": ["src/parse/dates.py"]}
    done = run_in_process("memory_apps.cli", ["write", "--no-references-from-git", "--entry-json", json.dumps(cite),
                                              "--project-root", project, "--global-store", store], home, cwd=project)
    assert done.returncode == 0, done.stderr
    run_hook(world, "pre-tool-use", {"hook_event_name": "PreToolUse", "tool_name": "Edit",
                                     "tool_input": {"file_path": "src/parse/dates.py"}}, session="sess-6")
    [read] = journal(world).recent(session_id="sess-6")
    assert [(m.name, m.mark) for m in read.shown] == [("Dates arrive in three formats", "current")]


def test_a_hook_whose_journal_cannot_be_written_answers_as_before(world):
    event = {"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": {"file_path": CITED}}
    (world[2] / "journal").write_text("not a directory")
    done = run_hook(world, "pre-tool-use", event)
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Never split CSV rows by hand" in context
    assert "injection journal not updated" in done.stderr
    start = run_hook(world, "session-start", {"hook_event_name": "SessionStart", "source": "startup"})
    assert "Engineering Memory" in json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]


def test_a_prompt_record_carries_each_shown_learnings_signals_and_relevance(world):
    done = run_hook(world, "user-prompt-submit", {"hook_event_name": "UserPromptSubmit",
                                                  "prompt": "writing a parser from the format description alone"},
                    session="sess-3")
    [asked] = journal(world).recent(session_id="sess-3")
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert asked.diagnostic and asked.diagnostic in context
    assert asked.shown and all(m.name in context for m in asked.shown)
    for memory in asked.shown:
        assert memory.relevance is not None and 0 <= memory.relevance <= 1
        assert "keywords" in memory.signals and all(0 <= v <= 1 for v in memory.signals.values())
        assert ("meaning" in memory.signals) == ("semantic: active" in asked.diagnostic)


def test_inject_is_recorded_without_a_session(world):
    home, project, store = world
    done = run_module("memory_apps.cli", ["inject", "--project-root", project, "--global-store", store], home)
    assert done.returncode == 0, done.stderr
    [record] = journal(world).recent()
    assert (record.hook, record.session_id, record.project) == ("inject", "", "demo-project")
    assert record.diagnostic and record.diagnostic in done.stdout
    assert record.shown and all(m.name in done.stdout for m in record.shown)


def test_the_viewers_service_reads_what_the_hooks_journaled(isolated_home, world):
    from memory_apps.service import MemoryService

    home, project, store = world
    run_hook(world, "pre-tool-use", {"hook_event_name": "PreToolUse", "tool_name": "Read",
                                     "tool_input": {"file_path": CITED}}, session="sess-9")
    service = MemoryService(global_store=str(store), project_root=str(project), tool="ui")
    try:
        [record] = service.injections(session_id="sess-9")
    finally:
        service.close()
    assert record.hook == "file" and [m.name for m in record.shown] == ["Never split CSV rows by hand"]
