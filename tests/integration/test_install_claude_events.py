"""`install-claude` writes issue 23's three hooks (SessionStart, UserPromptSubmit, PreToolUse with the file tools'
matcher) at every scope, once per project; `--events` chooses which; an older install gets the new ones added;
an earlier entry is refreshed in place and other people's hooks are left alone."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from memory_apps.claude.settings import project_hook_file
from tests.integration._claude_files import (
    VENV_BIN, hook_commands, local_settings, our_entries, parser, read, shared_settings,
)

FILE_TOOLS = "Read|Edit|MultiEdit|Write"
ALL = ["SessionStart", "UserPromptSubmit", "PreToolUse"]


def scope_file(scope: str, project: Path, home: Path) -> Path:
    return {"local": local_settings(project), "project": shared_settings(project),
            "user": home / ".claude" / "settings.json"}[scope]


def entry(command: str, timeout: int, matcher: str = "") -> list[dict]:
    """The groups one event gets: one hook of ours, a matcher only where one is given."""
    return [{**({"matcher": matcher} if matcher else {}),
             "hooks": [{"type": "command", "command": command, "timeout": timeout}]}]


def write_settings(path: Path, hooks: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": hooks}, indent=2), encoding="utf-8")


@pytest.mark.parametrize("scope", ["local", "project", "user"])
def test_each_scope_gets_the_three_hooks_in_the_shape_claude_code_reads(claude_install, project, isolated_home,
                                                                       scope):
    result = claude_install("--scope", scope)

    assert result.code == 0, result.err
    argv = "iflow-memory" if scope == "project" else shlex.join([f"{VENV_BIN}/iflow-memory"])
    flags = " --defer-to-project" if scope == "user" else ""
    assert our_entries(scope_file(scope, project, isolated_home)) == {
        "SessionStart": entry(f"{argv} hook session-start{flags}", 5),
        "UserPromptSubmit": entry(f"{argv} hook user-prompt-submit{flags}", 3),
        "PreToolUse": entry(f"{argv} hook pre-tool-use{flags}", 3, FILE_TOOLS),
    }
    assert "SessionStart, UserPromptSubmit and PreToolUse hooks" in result.lines[0], result.out


def test_events_installs_only_the_hooks_named_and_leaves_the_others_alone(claude_install, project):
    write_settings(local_settings(project), {"SessionStart": [{"hooks": [
        {"type": "command", "command": f"{VENV_BIN}/iflow-memory hook session-start", "timeout": 9}]}]})
    before = read(local_settings(project))["hooks"]["SessionStart"]

    result = claude_install("--events", "pre-tool-use,user-prompt-submit")

    assert result.code == 0, result.err
    written = our_entries(local_settings(project))
    assert list(written) == ALL and written["SessionStart"] == before, "not chosen: not even its timeout changes"
    assert "left as they are: the SessionStart hook (not in --events)" in result.lines, result.out
    assert result.lines[0].startswith(f"updated {local_settings(project)} (UserPromptSubmit and PreToolUse hooks "
                                      "added; backup: "), result.out


def test_one_event_alone_on_a_fresh_project(claude_install, project):
    result = claude_install("--events", "user-prompt-submit")

    assert result.code == 0, result.err
    assert list(our_entries(local_settings(project))) == ["UserPromptSubmit"]
    assert "left as they are: the SessionStart and PreToolUse hooks (not in --events)" in result.lines


@pytest.mark.parametrize("value", ["pre-tool", "session-start,bogus", "", "PreToolUse"])
def test_an_unknown_event_is_a_usage_error_naming_the_choices(value, capsys):
    with pytest.raises(SystemExit) as exit_:
        parser().parse_args(["install-claude", "--events", value])
    err = capsys.readouterr().err

    assert exit_.value.code != 0
    assert "argument --events: unknown event" in err and "session-start, user-prompt-submit, pre-tool-use" in err


def test_help_says_what_each_event_injects(capsys):
    with pytest.raises(SystemExit):
        parser().parse_args(["install-claude", "--help"])
    text = capsys.readouterr().out

    for command, name in [("session-start", "SessionStart"), ("user-prompt-submit", "UserPromptSubmit"),
                          ("pre-tool-use", "PreToolUse")]:
        [line] = [line for line in text.splitlines() if line.strip().startswith(f"{command} ")]
        assert name in line and ": " in line, line
    assert FILE_TOOLS in text and "--events" in text


def test_an_older_install_with_only_session_start_gets_the_two_new_hooks(claude_install, project, user_cache):
    old = {"SessionStart": entry(f"{VENV_BIN}/iflow-memory hook session-start", 5)}
    write_settings(local_settings(project), old)

    result = claude_install()

    assert result.code == 0, result.err
    written = our_entries(local_settings(project))
    assert written["SessionStart"] == old["SessionStart"] and list(written) == ALL
    assert result.lines[0].startswith(f"updated {local_settings(project)} (UserPromptSubmit and PreToolUse hooks "
                                      "added, SessionStart hook unchanged; backup: "), result.out
    assert claude_install().lines[0].startswith(f"unchanged {local_settings(project)}"), "then nothing to do"


def test_an_earlier_entry_is_refreshed_in_place_and_others_hooks_are_untouched(claude_install, project):
    ours = f"{VENV_BIN}/iflow-memory hook pre-tool-use"
    guard = {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}
    theirs_on_prompt = {"hooks": [{"type": "command", "command": "./lint-prompt.sh", "timeout": 30}]}
    write_settings(local_settings(project), {
        "PreToolUse": [
            guard,
            {"matcher": "Edit", "hooks": [{"type": "command", "command": ours, "timeout": 60, "statusMessage": "m"}]},
            {"matcher": "Write", "hooks": [{"type": "command", "command": ours}, {"type": "command",
                                                                                 "command": "./fmt.sh"}]},
        ],
        "UserPromptSubmit": [theirs_on_prompt],
    })

    result = claude_install()

    assert result.code == 0, result.err
    hooks = read(local_settings(project))["hooks"]
    assert hooks["PreToolUse"] == [
        guard,
        {"matcher": FILE_TOOLS, "hooks": [{"type": "command", "command": ours, "timeout": 3, "statusMessage": "m"}]},
        {"matcher": "Write", "hooks": [{"type": "command", "command": "./fmt.sh"}]},
    ], "one copy of ours, refreshed where it was; a copy beside someone else's hook goes, theirs stays"
    assert hooks["UserPromptSubmit"][0] == theirs_on_prompt and len(hooks["UserPromptSubmit"]) == 2
    assert "PreToolUse hook updated" in result.lines[0], result.out


def test_ours_sharing_a_group_with_another_matcher_moves_to_a_group_of_its_own(claude_install, project):
    shared_group = {"matcher": "Edit", "hooks": [{"type": "command", "command": "./fmt.sh"},
                                                 {"type": "command", "command": "iflow-memory hook pre-tool-use"}]}
    write_settings(shared_settings(project), {"PreToolUse": [shared_group]})

    assert claude_install("--scope", "project", "--events", "pre-tool-use").code == 0

    assert read(shared_settings(project))["hooks"]["PreToolUse"] == [
        {"matcher": "Edit", "hooks": [{"type": "command", "command": "./fmt.sh"}]},
        *entry("iflow-memory hook pre-tool-use", 3, FILE_TOOLS)], "their matcher stays theirs"


def test_each_event_is_installed_once_per_project_whatever_the_other_files_hold(claude_install, project):
    write_settings(shared_settings(project), {"SessionStart": entry("iflow-memory hook session-start", 5)})

    result = claude_install()  # local: the team's file already runs the session start, not the new two

    assert result.code == 0, result.err
    assert result.lines[0] == (f"unchanged: the SessionStart hook is already in {shared_settings(project)} "
                               f"(nothing added to {local_settings(project)})")
    assert list(our_entries(local_settings(project))) == ["UserPromptSubmit", "PreToolUse"]
    assert project_hook_file(str(project)) == str(shared_settings(project))
    assert project_hook_file(str(project), "SessionStart") == str(shared_settings(project))
    assert project_hook_file(str(project), "UserPromptSubmit") == str(local_settings(project))
    assert project_hook_file(str(project), "PreToolUse") == str(local_settings(project))


def test_a_project_install_of_one_event_takes_only_that_one_out_of_the_personal_file(claude_install, project):
    assert claude_install().code == 0

    result = claude_install("--scope", "project", "--events", "pre-tool-use")

    assert result.code == 0, result.err
    assert list(our_entries(local_settings(project))) == ["SessionStart", "UserPromptSubmit"]
    assert list(our_entries(shared_settings(project))) == ["PreToolUse"]
    assert "PreToolUse" not in read(local_settings(project))["hooks"], "an event list left empty goes"
    assert any(line.startswith(f"updated {local_settings(project)} (PreToolUse hook removed: "
                               f"{shared_settings(project)} runs it now") for line in result.lines), result.out


def test_the_user_scope_hooks_defer_event_by_event(claude_install, project, isolated_home):
    assert claude_install("--scope", "project", "--events", "session-start").code == 0

    result = claude_install("--scope", "user")

    assert result.code == 0, result.err
    user_file = isolated_home / ".claude" / "settings.json"
    assert all(hook_commands(user_file, event)[0].endswith("--defer-to-project") for event in ALL)
    assert project_hook_file(str(project), "SessionStart") == str(shared_settings(project))
    assert project_hook_file(str(project), "UserPromptSubmit") is None, "the user's hook answers prompts here"
    assert f"note: {shared_settings(project)} already runs the SessionStart hook for this project; the user-scope " \
           "hook stays quiet there, so its sessions get the memory once" in result.lines, result.out


def test_a_wrongly_shaped_event_list_is_refused_before_anything_is_written(claude_install, project, isolated_home):
    write_settings(local_settings(project), {"PreToolUse": {"matcher": "Edit"}})
    before = local_settings(project).read_bytes()

    result = claude_install()

    assert result.code == 1
    assert f'{local_settings(project)}: "hooks.PreToolUse" must be a JSON list' in result.err, result.err
    assert local_settings(project).read_bytes() == before and not (isolated_home / ".claude.json").exists()


def test_the_readme_shows_the_json_a_project_install_writes(claude_install, project):
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    after = readme[readme.index("`--scope project` writes, in `.claude/settings.json`"):]
    shown = after[after.index("```json") + len("```json"):]

    assert claude_install("--scope", "project").code == 0

    assert json.loads(shown[:shown.index("```")]) == read(shared_settings(project))
