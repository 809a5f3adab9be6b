"""`iflow-memory hook session-start` as Claude Code runs it: one JSON answer on stdout, exit 0.

Event filtering follows spec 002: startup and resume inject memory, clear and compact do not. A first session
and the next one run on both stores (`backend`); the other events and flags are the hook's own, whatever the store,
and a corrupt memory.db is SQLite's.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Optional, Sequence

import pytest

from tests._helpers import PYTHON, TIMEOUT_S, app_env, diagnostic_line, entry_headers

pytestmark = pytest.mark.slow

DEMO_PROJECT = Path(__file__).resolve().parents[2] / "examples" / "demo-project"
TITLE = "## Engineering Memory (from knowledge bank)"


def hook_env(home: Path, project_dir: Optional[Path] = None) -> dict:
    env = app_env(home)
    env.pop("CLAUDE_PROJECT_DIR", None)  # the runner itself may be inside Claude Code
    if project_dir is not None:
        env["CLAUDE_PROJECT_DIR"] = str(project_dir)
    return env


def run_hook(home: Path, store: Path, stdin: Optional[str], extra: Sequence[str] = (),
             project_dir: Optional[Path] = None, cwd: Optional[Path] = None) -> subprocess.CompletedProcess:
    """Run the hook like Claude Code does (how long it takes is for benchmarks/, never asserted here)."""
    return subprocess.run(
        [PYTHON, "-m", "memory_apps.cli", "hook", "session-start", "--global-store", str(store), *extra],
        env=hook_env(home, project_dir), cwd=str(cwd or home), input=stdin if stdin is not None else "",
        capture_output=True, text=True, timeout=TIMEOUT_S,
    )


def parse_answer(result: subprocess.CompletedProcess) -> str:
    """The additionalContext of the single hook-JSON object on stdout (asserting the exact shape)."""
    assert result.returncode == 0, result.stderr
    lines = [ln for ln in result.stdout.splitlines() if ln.strip()]
    assert len(lines) == 1, f"exactly one JSON object on stdout, got: {result.stdout!r}"
    answer = json.loads(lines[0])
    assert set(answer) == {"hookSpecificOutput"}, answer
    output = answer["hookSpecificOutput"]
    assert set(output) == {"hookEventName", "additionalContext"}, output
    assert output["hookEventName"] == "SessionStart"
    assert isinstance(output["additionalContext"], str)
    return output["additionalContext"]


def event(source: Optional[str], cwd: Optional[Path]) -> str:
    data: dict = {"session_id": "abc123", "transcript_path": "/dev/null", "hook_event_name": "SessionStart"}
    if source is not None:
        data["source"] = source
    if cwd is not None:
        data["cwd"] = str(cwd)
    return json.dumps(data)


@pytest.fixture
def demo(tmp_path) -> Path:
    """A copy of the bundled demo project (active feature + 12-entry knowledge bank)."""
    project = tmp_path / "demo-project"
    shutil.copytree(DEMO_PROJECT, project)
    return project


@pytest.fixture
def store(tmp_path) -> Path:
    return tmp_path / "global-store"


@pytest.mark.parametrize("source", ["startup", "resume"])
def test_startup_and_resume_inject_the_memory_block(isolated_home, store, demo, source):
    result = run_hook(isolated_home, store, event(source, demo))

    context = parse_answer(result)
    assert context.startswith(TITLE + "\n\n"), context[:200]
    assert context.endswith("\n---\n")
    assert len(entry_headers(context)) == 12, "the whole 12-entry demo bank fits in the default limit of 20"
    assert "Writing a Parser From the Format Description Alone" in context
    assert diagnostic_line(context).startswith("*Memory:")
    assert 'context: "csv-importer' in diagnostic_line(context), "the project comes from the event's cwd"
    assert "Traceback" not in result.stderr


def test_resume_after_startup_still_injects(isolated_home, store, demo, backend):
    first = run_hook(isolated_home, store, event("startup", demo))
    second = run_hook(isolated_home, store, event("resume", demo))

    assert parse_answer(first)
    assert len(entry_headers(parse_answer(second))) == 12
    assert "fallback" not in diagnostic_line(parse_answer(second)), "the second session reads the store"
    assert backend.holds_store(store) and backend.rows(store, "SELECT SUM(recall_count) FROM entries") == [(24,)]


@pytest.mark.parametrize("source", ["clear", "compact"])
def test_clear_and_compact_skip_injection(isolated_home, store, demo, source):
    result = run_hook(isolated_home, store, event(source, demo))

    assert parse_answer(result) == ""
    assert not (store / "memory.db").exists(), "a skipped event does not even open the database"


def test_limit_flag_caps_the_block(isolated_home, store, demo):
    result = run_hook(isolated_home, store, event("startup", demo), extra=["--limit", "4"])

    assert len(entry_headers(parse_answer(result))) == 4


@pytest.mark.parametrize(
    "stdin",
    ["this is not json {", "", "[1, 2, 3]", '"startup"', '{"source": 42, "cwd": 7}', "\x00\xff garbage"],
    ids=["garbage", "empty", "json-list", "json-string", "wrong-types", "binary-ish"],
)
def test_unreadable_events_still_get_a_valid_answer(isolated_home, store, tmp_path, stdin):
    empty_project = tmp_path / "empty-project"
    empty_project.mkdir()

    result = run_hook(isolated_home, store, stdin, cwd=empty_project)

    assert parse_answer(result) == "", "no knowledge anywhere: nothing to inject"
    assert "Traceback" not in result.stderr


def test_garbage_event_falls_back_to_the_working_directory(isolated_home, store, demo):
    result = run_hook(isolated_home, store, "not json at all", cwd=demo)

    context = parse_answer(result)
    assert len(entry_headers(context)) == 12, "an unreadable event counts as a startup in the current directory"


def test_corrupt_database_falls_back_to_markdown(isolated_home, store, demo):
    store.mkdir()
    garbage = os.urandom(16384)
    (store / "memory.db").write_bytes(garbage)

    result = run_hook(isolated_home, store, event("startup", demo))

    context = parse_answer(result)
    assert context.startswith(TITLE)
    assert "semantic: fallback (database corrupt" in diagnostic_line(context), diagnostic_line(context)
    assert len(entry_headers(context)) == 12
    # Never deleted: either left in place or moved aside as memory.db.corrupt-<timestamp>.
    kept = [p for p in store.iterdir() if p.name == "memory.db" or p.name.startswith("memory.db.corrupt-")]
    assert any(p.is_file() and p.read_bytes() == garbage for p in kept), sorted(p.name for p in store.iterdir())
    assert "Traceback" not in result.stderr


def test_nonexistent_project_directory(isolated_home, store, tmp_path):
    result = run_hook(isolated_home, store, event("startup", tmp_path / "does" / "not" / "exist"))

    assert parse_answer(result) == ""
    assert "Traceback" not in result.stderr


def test_bad_flag_exits_zero(isolated_home, store, demo):
    result = run_hook(isolated_home, store, event("startup", demo), extra=["--limit", "abc"])

    assert result.returncode == 0, result.stderr
    assert "--limit" in result.stderr, "the usage error is reported on stderr"
    assert "Traceback" not in result.stderr
    if result.stdout.strip():
        parse_answer(result)


def test_claude_project_dir_is_honoured(isolated_home, store, demo, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    result = run_hook(isolated_home, store, event("startup", elsewhere), project_dir=demo, cwd=elsewhere)

    context = parse_answer(result)
    assert len(entry_headers(context)) == 12
    assert 'context: "csv-importer' in diagnostic_line(context)


def test_project_root_flag_wins_over_the_event(isolated_home, store, demo, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    result = run_hook(isolated_home, store, event("startup", elsewhere), extra=["--project-root", str(demo)],
                               project_dir=elsewhere)

    assert len(entry_headers(parse_answer(result))) == 12


def test_disabled_injection_gives_an_empty_context(isolated_home, store, demo):
    settings = demo / ".claude" / "iflow-dev.local.md"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text("memory_injection_enabled: false\n", encoding="utf-8")

    result = run_hook(isolated_home, store, event("startup", demo))

    assert parse_answer(result) == ""


@pytest.mark.parametrize("settings", [
    '{"hooks": {"SessionStart": [{"hooks": 5}]}}', '{"hooks": {"SessionStart": [{"hooks": null}]}}',
    '{"hooks": {"SessionStart": [7, {"hooks": [3, {"command": 5}]}]}}', '[1, 2]', "[" * 5000 + "]" * 5000,
])
def test_a_deferring_hook_survives_project_settings_of_any_shape(isolated_home, store, demo, settings):
    """Settings a person broke by hand do not run the hook, so a user-scope hook answers, exit 0, one JSON."""
    (demo / ".claude").mkdir(exist_ok=True)
    (demo / ".claude" / "settings.json").write_text(settings, encoding="utf-8")

    result = run_hook(isolated_home, store, event("startup", demo), extra=["--defer-to-project"])

    assert TITLE in parse_answer(result)
