"""The prompt and file hooks as Claude Code runs them (issue 23): hook JSON or nothing on stdout, exit 0, the
learning a prompt or file calls for, nothing when nothing is relevant, nothing twice in one session.

The real knowledge bank is imported and embedded with the local model once; each hook is its own process (cold:
the suite switches the warm process off and gives hooks a long deadline, see tests/conftest.py)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Optional

import pytest

from tests._helpers import (
    PYTHON, TIMEOUT_S, app_env, copy_bank, entry_names, model_env, run_in_process, write_settings,
)
from tests.conftest import shared_fixture

pytestmark = pytest.mark.slow

FILE_EVENT, PROMPT_EVENT = "pre-tool-use", "user-prompt-submit"
ANSWERED = [  # prompts of the relevance suite's set and the learning graded "directly relevant" for each
    ("the migration to schema version 5 broke a dozen tests that assert schema_version == '4'",
     "Schema Version Assertion Census Before Plan Submission"),
    ("after moving the project folder, nothing in .venv/bin starts any more",
     "Recreate Python Venvs After Directory Renames"),
]
NONSENSE = ["zzzzqqq xkcdvv", "what's the weather like in Lisbon this weekend?"]


@pytest.fixture(scope="module")
def bank(tmp_path_factory):
    """The real bank imported and embedded (local model) into a store, in a project that cites one file."""
    root = tmp_path_factory.mktemp("moment")
    home, project, store = root / "home", root / "project", root / "store"
    home.mkdir()
    copy_bank(shared_fixture("knowledge-bank", "head"), project)
    write_settings(project, embedding_provider="local")
    env = model_env(root)
    for command in (["import"], ["embed"]):
        done = run_in_process("memory_apps.cli", [*command, "--project-root", project, "--global-store", store],
                              home, env=env)
        assert done.returncode == 0, done.stderr
    cite = {"name": "Never split CSV rows by hand",
            "description": "Quoted fields hold commas and line breaks: read rows with the csv module.",
            "category": "anti-patterns", "references": ["src/ingest/csv_reader.py:40"]}
    wrote = run_in_process("memory_apps.cli", ["write", "--project-root", project, "--global-store", store,
                                               "--entry-json", json.dumps(cite)], home, env=env)
    assert wrote.returncode == 0, wrote.stderr
    return home, project, store, env


def hook(bank, kind: str, event: dict, session: Optional[str] = "session-1") -> Optional[str]:
    """Run one hook process; the additionalContext it answered, or None when it printed nothing."""
    home, project, store, env = bank
    payload = {"session_id": session, "transcript_path": "/dev/null", "cwd": str(project),
               "hook_event_name": "x", **event}
    done = subprocess.run([PYTHON, "-m", "memory_apps.cli", "hook", kind, "--global-store", str(store)],
                          input=json.dumps(payload), capture_output=True, text=True, timeout=TIMEOUT_S,
                          env={**app_env(home, env), "CLAUDE_PROJECT_DIR": str(project)}, cwd=str(project))
    assert done.returncode == 0, done.stderr
    if not done.stdout.strip():
        return None
    lines = done.stdout.splitlines()
    assert len(lines) == 1, f"one JSON object and nothing else on stdout: {done.stdout!r}"
    answer = json.loads(lines[0])
    assert set(answer) == {"hookSpecificOutput"}
    output = answer["hookSpecificOutput"]
    assert set(output) == {"hookEventName", "additionalContext"}  # never allows, denies or alters a tool call
    assert output["hookEventName"] == {FILE_EVENT: "PreToolUse", PROMPT_EVENT: "UserPromptSubmit"}[kind]
    return output["additionalContext"]


def prompt(bank, text: str, session: str = "session-1") -> Optional[str]:
    """The prompt hook's answer to `text`."""
    return hook(bank, PROMPT_EVENT, {"prompt": text}, session)


def file_tool(bank, path: str, tool: str = "Edit", session: str = "session-1") -> Optional[str]:
    """The file hook's answer before `tool` uses `path` (absolute, as Claude Code sends it)."""
    return hook(bank, FILE_EVENT, {"tool_name": tool, "tool_input": {"file_path": str(bank[1] / path)}}, session)


@pytest.mark.parametrize("text, wanted", ANSWERED)
def test_a_prompt_the_bank_answers_gets_its_learning_and_at_most_three(bank, text, wanted):
    answer = prompt(bank, text, session=f"answered-{abs(hash(text))}")
    assert answer is not None
    assert wanted in entry_names(answer)
    assert 1 <= len(entry_names(answer)) <= 3
    assert "semantic: active" in answer  # the model ran: the suite's long deadline


@pytest.mark.parametrize("text", NONSENSE)
def test_a_prompt_nothing_answers_gets_nothing_at_all(bank, text):
    assert prompt(bank, text, session="nonsense") is None


def test_the_file_hook_injects_the_learning_citing_the_file_and_nothing_for_other_files(bank):
    answer = file_tool(bank, "src/ingest/csv_reader.py", session="files")
    assert entry_names(answer) == ["Never split CSV rows by hand"]
    assert "cites src/ingest/csv_reader.py:40 (same file)" in answer
    assert file_tool(bank, "docs/unrelated/notes.txt", session="files") is None
    assert file_tool(bank, "src/ingest/csv_reader.py", tool="Bash", session="bash") is None
    assert hook(bank, FILE_EVENT, {"tool_name": "Read", "tool_input": {"file_path": "/etc/passwd"}}) is None


def test_one_session_never_sees_a_learning_twice(bank):
    home, project, store, env = bank
    start = subprocess.run([PYTHON, "-m", "memory_apps.cli", "hook", "session-start", "--global-store", str(store)],
                           input=json.dumps({"session_id": "once", "source": "startup", "cwd": str(project)}),
                           capture_output=True, text=True, timeout=TIMEOUT_S,
                           env={**app_env(home, env), "CLAUDE_PROJECT_DIR": str(project)}, cwd=str(project))
    assert start.returncode == 0, start.stderr
    shown = entry_names(json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"])
    assert shown  # the session block showed the bank's most prominent learnings
    asked = [text for text, _ in ANSWERED] + ["our csv import splits rows on commas and breaks on quoted fields"]
    for text in asked + asked:
        shown += entry_names(prompt(bank, text, session="once") or "")
    shown += entry_names(file_tool(bank, "src/ingest/csv_reader.py", session="once") or "")
    shown += entry_names(file_tool(bank, "src/ingest/csv_reader.py", tool="Read", session="once") or "")
    assert len(shown) > 20  # prompts and files added to what the session start showed...
    assert len(shown) == len(set(shown)), sorted(n for n in shown if shown.count(n) > 1)  # ...and nothing twice


def test_after_a_compaction_the_session_may_be_reminded(bank):
    home, project, store, env = bank
    text = ANSWERED[0][0]
    first = prompt(bank, text, session="compacted")
    assert prompt(bank, text, session="compacted") is None
    compact = subprocess.run([PYTHON, "-m", "memory_apps.cli", "hook", "session-start", "--global-store", str(store)],
                             input=json.dumps({"session_id": "compacted", "source": "compact", "cwd": str(project)}),
                             capture_output=True, text=True, timeout=TIMEOUT_S,
                             env={**app_env(home, env), "CLAUDE_PROJECT_DIR": str(project)}, cwd=str(project))
    assert compact.returncode == 0, compact.stderr
    assert prompt(bank, text, session="compacted") == first


@pytest.mark.parametrize("stdin", ["", "not json", "[1, 2]", '{"prompt": 42}', '{"session_id": "../../x", '
                                   '"prompt": "zzzz"}'])
def test_unreadable_or_hostile_events_print_nothing_and_exit_zero(bank, stdin):
    home, project, store, env = bank
    for kind in (PROMPT_EVENT, FILE_EVENT):
        done = subprocess.run([PYTHON, "-m", "memory_apps.cli", "hook", kind, "--global-store", str(store)],
                              input=stdin, capture_output=True, text=True, timeout=TIMEOUT_S,
                              env={**app_env(home, env), "CLAUDE_PROJECT_DIR": str(project)}, cwd=str(project))
        assert (done.returncode, done.stdout) == (0, "")
    assert not (Path(store).parent / "x.json").exists()


def test_shown_learnings_count_as_recalled(bank):
    home, project, store, env = bank
    listed = lambda: json.loads(run_in_process(  # noqa: E731
        "memory_apps.cli", ["list", "--json", "--global-store", store, "--project-root", project], home, env=env).stdout)
    before = {e["name"]: e["recall_count"] for e in listed()}
    file_tool(bank, "src/ingest/csv_reader.py", session="recalls")
    after = {e["name"]: e["recall_count"] for e in listed()}
    assert after["Never split CSV rows by hand"] == before["Never split CSV rows by hand"] + 1
    assert sum(after.values()) == sum(before.values()) + 1
