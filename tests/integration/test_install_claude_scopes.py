"""`iflow-memory install-claude` writes the SessionStart hook and the MCP server into Claude Code's scopes (issue
13): local (the default), project and user; a second run changes nothing, other entries are kept.

The command runs in-process (the claude_install fixture); test_installed_claude_commands runs what it wrote.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pytest

from tests.integration._claude_files import (
    MCP_HINT, PORTABLE_HOOK, VENV_BIN, claude_json, files, hook_commands, local_server, local_settings, mode, parser,
    read, shared_settings,
)


def test_default_scope_keeps_this_machines_paths_out_of_the_shared_files(claude_install, project, isolated_home):
    result = claude_install()

    assert result.code == 0, result.err
    [hook] = hook_commands(local_settings(project))
    assert shlex.split(hook)[0] == str(Path(VENV_BIN) / "iflow-memory")
    server = local_server(isolated_home, project)
    assert server == {"command": str(Path(VENV_BIN) / "iflow-memory"), "args": ["serve"]}
    assert not shared_settings(project).exists() and not (project / ".mcp.json").exists(), \
        "nothing a team commits is written by default"
    assert result.lines == [f"created {local_settings(project)} (SessionStart, UserPromptSubmit and PreToolUse hooks)",
                            f"created {claude_json(isolated_home)} (MCP server iflow-memory for "
                            f"{os.path.realpath(project)})"]
    assert mode(local_settings(project)) == 0o600 and mode(claude_json(isolated_home)) == 0o600


def test_project_scope_writes_portable_commands_into_the_shared_files(claude_install, project, isolated_home):
    result = claude_install("--scope", "project")

    assert result.code == 0, result.err
    assert hook_commands(shared_settings(project)) == [PORTABLE_HOOK]
    assert read(project / ".mcp.json") == {"mcpServers": {"iflow-memory": {"command": "iflow-memory",
                                                                           "args": ["serve"]}}}
    for path in (shared_settings(project), project / ".mcp.json"):
        text = path.read_text(encoding="utf-8")
        assert VENV_BIN not in text and str(project) not in text and str(isolated_home) not in text, text
    assert not local_settings(project).exists() and not claude_json(isolated_home).exists()
    assert [line.split()[0] for line in result.lines] == ["created", "created"], result.out


def test_project_scope_makes_an_earlier_absolute_install_portable(claude_install, project):
    old = f"{VENV_BIN}/iflow-memory"
    shared_settings(project).parent.mkdir()
    shared_settings(project).write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [
        {"type": "command", "command": f"{old} hook session-start", "timeout": 5}]}]}}), encoding="utf-8")
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"iflow-memory": {
        "command": old, "args": ["serve"], "env": {"IFLOW_DEBUG": "1"}}}}), encoding="utf-8")

    result = claude_install("--scope", "project")

    assert result.code == 0, result.err
    assert hook_commands(shared_settings(project)) == [PORTABLE_HOOK], "replaced, not added beside"
    assert read(project / ".mcp.json")["mcpServers"]["iflow-memory"] == {
        "command": "iflow-memory", "args": ["serve"], "env": {"IFLOW_DEBUG": "1"}}, "the user's env is kept"
    assert [line.split()[0] for line in result.lines] == ["updated", "updated"], result.out


def test_user_scope_writes_the_users_own_files(claude_install, project, isolated_home):
    result = claude_install("--scope", "user")

    assert result.code == 0, result.err
    [hook] = hook_commands(isolated_home / ".claude" / "settings.json")
    assert Path(shlex.split(hook)[0]).parent == Path(VENV_BIN)
    assert read(claude_json(isolated_home))["mcpServers"]["iflow-memory"]["args"] == ["serve"]
    assert list(project.iterdir()) == [], "nothing in the project"


@pytest.mark.parametrize("scope", ["local", "project", "user"])
def test_second_run_changes_nothing(claude_install, project, isolated_home, user_cache, scope):
    assert claude_install("--scope", scope).code == 0
    before = {**files(project), **files(isolated_home)}

    again = claude_install("--scope", scope)

    assert again.code == 0, again.err
    assert {**files(project), **files(isolated_home)} == before, "byte-identical, no backups, no temp files"
    assert not user_cache.exists(), "nothing was backed up"
    assert len(again.lines) == 2 and all(line.startswith("unchanged") for line in again.lines), again.out


def test_other_entries_are_kept_and_backed_up_outside_the_project(claude_install, project, user_cache):
    settings_before = {
        "permissions": {"allow": ["Bash(npm test:*)"]},
        "model": "opus",
        "hooks": {
            "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}],
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}],
        },
    }
    mcp_before = {"mcpServers": {"db": {"command": "db-mcp", "env": {"TOKEN": "t0k"}}}, "other": True}
    shared_settings(project).parent.mkdir()
    settings_text = json.dumps(settings_before, indent=4)  # formatting the tool will not reproduce
    mcp_text = json.dumps(mcp_before)
    shared_settings(project).write_text(settings_text, encoding="utf-8")
    (project / ".mcp.json").write_text(mcp_text, encoding="utf-8")
    (project / ".mcp.json").chmod(0o644)

    result = claude_install("--scope", "project")

    assert result.code == 0, result.err
    settings = read(shared_settings(project))
    assert {k: v for k, v in settings.items() if k != "hooks"} == {"permissions": settings_before["permissions"],
                                                                   "model": "opus"}
    assert settings["hooks"]["PreToolUse"][0] == settings_before["hooks"]["PreToolUse"][0], "the guard is theirs"
    assert settings["hooks"]["SessionStart"][0] == settings_before["hooks"]["SessionStart"][0]
    assert len(settings["hooks"]["PreToolUse"]) == 2, "ours beside it, in a group of its own"
    assert hook_commands(shared_settings(project)) == [PORTABLE_HOOK]
    mcp = read(project / ".mcp.json")
    assert mcp["other"] is True and mcp["mcpServers"]["db"] == mcp_before["mcpServers"]["db"]
    assert mode(project / ".mcp.json") == 0o644, "a rewritten file keeps its mode"

    assert sorted(p.name for p in project.rglob("*")) == [".claude", ".mcp.json", "settings.json"], \
        "no backup in the repository"
    backups = sorted(p for p in user_cache.rglob("*") if p.is_file())
    assert sorted(p.read_text(encoding="utf-8") for p in backups) == sorted([settings_text, mcp_text])
    assert all(mode(p) == 0o600 for p in backups) and mode(backups[0].parent) == 0o700, "tokens stay private"
    for backup in backups:
        assert f"backup: {backup}" in result.out, result.out
    assert all(line.startswith("updated") for line in result.lines), result.out


def test_claude_json_keeps_everything_else(claude_install, project, isolated_home):
    other_project = {"allowedTools": [], "mcpServers": {"db": {"command": "db-mcp"}}}
    before = {"numStartups": 12, "mcpServers": {"notes": {"command": "notes-mcp"}},
              "projects": {"/home/zoë/café": other_project,
                           os.path.realpath(project): {"hasTrustDialogAccepted": True}}}
    claude_json(isolated_home).write_text(json.dumps(before), encoding="utf-8")

    result = claude_install()

    assert result.code == 0, result.err
    after = read(claude_json(isolated_home))
    assert after["numStartups"] == 12 and after["mcpServers"] == before["mcpServers"]
    assert after["projects"]["/home/zoë/café"] == other_project
    assert "/home/zoë/café" in claude_json(isolated_home).read_text(encoding="utf-8"), "not \\u-escaped"
    ours = after["projects"][os.path.realpath(project)]
    assert ours["hasTrustDialogAccepted"] is True and set(ours["mcpServers"]) == {"iflow-memory"}
    assert f"updated {claude_json(isolated_home)}" in result.out


def test_without_the_mcp_extra_the_server_is_not_registered(claude_install, project, isolated_home, monkeypatch):
    with monkeypatch.context() as blocked:
        blocked.setitem(sys.modules, "mcp", None)  # `import mcp` fails as when the extra is not installed
        result = claude_install()

    assert result.code == 0, result.err
    assert hook_commands(local_settings(project)), "the hook works without mcp"
    assert not claude_json(isolated_home).exists(), "a server that would exit at start is not registered"
    assert "skipped MCP server iflow-memory: the mcp extra is not installed" in result.out
    assert MCP_HINT in result.out

    with_mcp = claude_install()
    assert with_mcp.lines[-1].startswith(f"created {claude_json(isolated_home)}"), with_mcp.out
    assert local_server(isolated_home, project)["args"] == ["serve"]



def test_help_describes_scopes_and_exit_statuses(capsys):
    cli = parser()

    with pytest.raises(SystemExit):
        cli.parse_args(["install-claude", "--help"])
    text = capsys.readouterr().out

    assert "--scope {local,project,user}" in text
    assert "settings.local.json" in text and ".mcp.json" in text and "exit status: 0" in text
    assert cli.parse_args(["install-claude"]).scope == "local"


def test_project_root_is_the_flag_as_everywhere_and_project_still_works(claude_install, project, tmp_path, capsys):
    cli = parser()
    with pytest.raises(SystemExit):
        cli.parse_args(["install-claude", "--help"])
    text = capsys.readouterr().out
    other = tmp_path / "other"
    other.mkdir()

    named = cli.parse_args(["install-claude", "--project-root", str(other)])
    old_name = claude_install("--scope", "project")  # the fixture passes --project

    assert "--project-root PROJECT_ROOT" in text and "--project " not in text and "--project\n" not in text, text
    assert named.project == str(other)
    assert old_name.code == 0 and hook_commands(shared_settings(project)) == [PORTABLE_HOOK]
