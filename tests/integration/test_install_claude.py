"""`iflow-memory install-claude`: the SessionStart hook and the MCP server, in Claude Code's scopes (issue 13).

The command runs in-process through the parser `install_claude.add_command` registers; two tests then run the
commands it wrote as real processes.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memory_apps import install_claude
from tests.integration._helpers import PYTHON, TIMEOUT_S, app_env, entry_headers, git

DEMO_PROJECT = Path(__file__).resolve().parents[2] / "examples" / "demo-project"
VENV_BIN = str(Path(PYTHON).parent)
PORTABLE_HOOK = "iflow-memory hook session-start"
MCP_HINT = "pip install 'iflow-memory[mcp]'"


class Installed:
    """One in-process `install-claude` run: exit status and output."""

    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err
        self.lines = out.strip().splitlines()


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """The user's cache directory (backups go there)."""
    path = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(path))
    return path


@pytest.fixture
def install(project, isolated_home, cache, capsys, monkeypatch):
    """Run `install-claude --project <project> ARGS...` in-process; `iflow-memory` is on PATH."""
    monkeypatch.setenv("PATH", os.pathsep.join([VENV_BIN, "/usr/bin", "/bin"]))

    def run(*args: str, target: Path = project) -> Installed:
        parser = argparse.ArgumentParser(prog="iflow-memory")
        install_claude.add_command(parser.add_subparsers(), argparse.RawDescriptionHelpFormatter)
        parsed = parser.parse_args(["install-claude", "--project", str(target), *args])
        code = parsed.handler(parsed)
        captured = capsys.readouterr()
        return Installed(code, captured.out, captured.err)

    return run


def read(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def shared_settings(project: Path) -> Path:
    return project / ".claude" / "settings.json"


def local_settings(project: Path) -> Path:
    return project / ".claude" / "settings.local.json"


def claude_json(home: Path) -> Path:
    return home / ".claude.json"


def hook_commands(path: Path) -> list[str]:
    return [hook["command"] for group in read(path)["hooks"]["SessionStart"] for hook in group.get("hooks", [])
            if hook["command"].endswith("hook session-start")]


def local_server(home: Path, project: Path) -> dict:
    return read(claude_json(home))["projects"][os.path.realpath(project)]["mcpServers"]["iflow-memory"]


def files(directory: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()} if directory.exists() else {}


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_default_scope_keeps_this_machines_paths_out_of_the_shared_files(install, project, isolated_home):
    result = install()

    assert result.code == 0, result.err
    [hook] = hook_commands(local_settings(project))
    assert shlex.split(hook)[0] == str(Path(VENV_BIN) / "iflow-memory")
    server = local_server(isolated_home, project)
    assert server == {"command": str(Path(VENV_BIN) / "iflow-memory"), "args": ["serve"]}
    assert not shared_settings(project).exists() and not (project / ".mcp.json").exists(), \
        "nothing a team commits is written by default"
    assert result.lines == [f"created {local_settings(project)} (SessionStart hook)",
                            f"created {claude_json(isolated_home)} (MCP server iflow-memory for "
                            f"{os.path.realpath(project)})"]
    assert mode(local_settings(project)) == 0o600 and mode(claude_json(isolated_home)) == 0o600


def test_project_scope_writes_portable_commands_into_the_shared_files(install, project, isolated_home):
    result = install("--scope", "project")

    assert result.code == 0, result.err
    assert hook_commands(shared_settings(project)) == [PORTABLE_HOOK]
    assert read(project / ".mcp.json") == {"mcpServers": {"iflow-memory": {"command": "iflow-memory",
                                                                           "args": ["serve"]}}}
    for path in (shared_settings(project), project / ".mcp.json"):
        text = path.read_text(encoding="utf-8")
        assert VENV_BIN not in text and str(project) not in text and str(isolated_home) not in text, text
    assert not local_settings(project).exists() and not claude_json(isolated_home).exists()
    assert [line.split()[0] for line in result.lines] == ["created", "created"], result.out


def test_project_scope_makes_an_earlier_absolute_install_portable(install, project):
    old = f"{VENV_BIN}/iflow-memory"
    shared_settings(project).parent.mkdir()
    shared_settings(project).write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [
        {"type": "command", "command": f"{old} hook session-start", "timeout": 5}]}]}}), encoding="utf-8")
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"iflow-memory": {
        "command": old, "args": ["serve"], "env": {"IFLOW_DEBUG": "1"}}}}), encoding="utf-8")

    result = install("--scope", "project")

    assert result.code == 0, result.err
    assert hook_commands(shared_settings(project)) == [PORTABLE_HOOK], "replaced, not added beside"
    assert read(project / ".mcp.json")["mcpServers"]["iflow-memory"] == {
        "command": "iflow-memory", "args": ["serve"], "env": {"IFLOW_DEBUG": "1"}}, "the user's env is kept"
    assert [line.split()[0] for line in result.lines] == ["updated", "updated"], result.out


def test_user_scope_writes_the_users_own_files(install, project, isolated_home):
    result = install("--scope", "user")

    assert result.code == 0, result.err
    [hook] = hook_commands(isolated_home / ".claude" / "settings.json")
    assert Path(shlex.split(hook)[0]).parent == Path(VENV_BIN)
    assert read(claude_json(isolated_home))["mcpServers"]["iflow-memory"]["args"] == ["serve"]
    assert list(project.iterdir()) == [], "nothing in the project"


@pytest.mark.parametrize("scope", ["local", "project", "user"])
def test_second_run_changes_nothing(install, project, isolated_home, cache, scope):
    assert install("--scope", scope).code == 0
    before = {**files(project), **files(isolated_home)}

    again = install("--scope", scope)

    assert again.code == 0, again.err
    assert {**files(project), **files(isolated_home)} == before, "byte-identical, no backups, no temp files"
    assert not cache.exists(), "nothing was backed up"
    assert len(again.lines) == 2 and all(line.startswith("unchanged") for line in again.lines), again.out


def test_other_entries_are_kept_and_backed_up_outside_the_project(install, project, cache):
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

    result = install("--scope", "project")

    assert result.code == 0, result.err
    settings = read(shared_settings(project))
    assert {k: v for k, v in settings.items() if k != "hooks"} == {"permissions": settings_before["permissions"],
                                                                   "model": "opus"}
    assert settings["hooks"]["PreToolUse"] == settings_before["hooks"]["PreToolUse"]
    assert settings["hooks"]["SessionStart"][0] == settings_before["hooks"]["SessionStart"][0]
    assert hook_commands(shared_settings(project)) == [PORTABLE_HOOK]
    mcp = read(project / ".mcp.json")
    assert mcp["other"] is True and mcp["mcpServers"]["db"] == mcp_before["mcpServers"]["db"]
    assert mode(project / ".mcp.json") == 0o644, "a rewritten file keeps its mode"

    assert sorted(p.name for p in project.rglob("*")) == [".claude", ".mcp.json", "settings.json"], \
        "no backup in the repository"
    backups = sorted(p for p in cache.rglob("*") if p.is_file())
    assert sorted(p.read_text(encoding="utf-8") for p in backups) == sorted([settings_text, mcp_text])
    assert all(mode(p) == 0o600 for p in backups) and mode(backups[0].parent) == 0o700, "tokens stay private"
    for backup in backups:
        assert f"backup: {backup}" in result.out, result.out
    assert all(line.startswith("updated") for line in result.lines), result.out


def test_claude_json_keeps_everything_else(install, project, isolated_home):
    other_project = {"allowedTools": [], "mcpServers": {"db": {"command": "db-mcp"}}}
    before = {"numStartups": 12, "mcpServers": {"notes": {"command": "notes-mcp"}},
              "projects": {"/home/zoë/café": other_project,
                           os.path.realpath(project): {"hasTrustDialogAccepted": True}}}
    claude_json(isolated_home).write_text(json.dumps(before), encoding="utf-8")

    result = install()

    assert result.code == 0, result.err
    after = read(claude_json(isolated_home))
    assert after["numStartups"] == 12 and after["mcpServers"] == before["mcpServers"]
    assert after["projects"]["/home/zoë/café"] == other_project
    assert "/home/zoë/café" in claude_json(isolated_home).read_text(encoding="utf-8"), "not \\u-escaped"
    ours = after["projects"][os.path.realpath(project)]
    assert ours["hasTrustDialogAccepted"] is True and set(ours["mcpServers"]) == {"iflow-memory"}
    assert f"updated {claude_json(isolated_home)}" in result.out


def test_without_the_mcp_extra_the_server_is_not_registered(install, project, isolated_home, monkeypatch):
    with monkeypatch.context() as blocked:
        blocked.setitem(sys.modules, "mcp", None)  # `import mcp` fails as when the extra is not installed
        result = install()

    assert result.code == 0, result.err
    assert hook_commands(local_settings(project)), "the hook works without mcp"
    assert not claude_json(isolated_home).exists(), "a server that would exit at start is not registered"
    assert "skipped MCP server iflow-memory: the mcp extra is not installed" in result.out
    assert MCP_HINT in result.out

    with_mcp = install()
    assert with_mcp.lines[-1].startswith(f"created {claude_json(isolated_home)}"), with_mcp.out
    assert local_server(isolated_home, project)["args"] == ["serve"]


def test_invalid_json_exits_1_names_the_file_and_writes_nothing(install, project, isolated_home, cache):
    broken = '{"projects": { oops\n'
    claude_json(isolated_home).write_text(broken, encoding="utf-8")

    result = install()

    assert result.code == 1
    assert str(claude_json(isolated_home)) in result.err and "not valid JSON" in result.err, result.err
    assert "Traceback" not in result.err
    assert claude_json(isolated_home).read_text(encoding="utf-8") == broken
    assert not local_settings(project).exists(), "the hook is not written either"
    assert not cache.exists()


@pytest.mark.parametrize(
    "scope, name, content",
    [("project", ".claude/settings.json", '{"hooks": []}'),
     ("project", ".claude/settings.json", '{"hooks": {"SessionStart": {}}}'),
     ("project", ".mcp.json", '{"mcpServers": []}'),
     ("local", "~/.claude.json", '{"projects": []}'),
     ("local", ".claude/settings.local.json", '[1, 2]')],
    ids=["hooks-is-a-list", "session-start-is-an-object", "servers-is-a-list", "projects-is-a-list", "not-an-object"],
)
def test_json_of_the_wrong_shape_is_reported_without_a_traceback(install, project, isolated_home, scope, name,
                                                                 content):
    path = isolated_home / name[2:] if name.startswith("~/") else project / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(content, encoding="utf-8")
    before = {**files(project), **files(isolated_home)}

    result = install("--scope", scope)

    assert result.code == 1
    assert str(path) in result.err and "Traceback" not in result.err, result.err
    assert {**files(project), **files(isolated_home)} == before, "nothing written"


@pytest.mark.parametrize("scope, name", [("local", ".claude/settings.local.json"), ("local", "~/.claude.json"),
                                         ("project", ".mcp.json"), ("project", ".claude/settings.json"),
                                         ("user", "~/.claude/settings.json")])
def test_a_linked_config_file_is_refused(install, project, isolated_home, tmp_path, scope, name):
    secret = tmp_path / "secret.json"
    secret.write_text('{"token": "s3cr3t"}', encoding="utf-8")
    link = isolated_home / name[2:] if name.startswith("~/") else project / name
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(secret)

    result = install("--scope", scope)

    assert result.code == 1
    assert "symbolic link" in result.err and str(link) in result.err, result.err
    assert link.is_symlink() and secret.read_text(encoding="utf-8") == '{"token": "s3cr3t"}'
    assert [p for p in project.rglob("*") if p.is_file() and not p.is_symlink()] == [], "nothing written"


def test_a_missing_project_fails_and_creates_nothing(install, tmp_path, isolated_home):
    missing = tmp_path / "no-such-project"

    result = install(target=missing)

    assert result.code == 1
    assert str(missing) in result.err
    assert not missing.exists() and not claude_json(isolated_home).exists()


def test_a_hook_in_the_shared_settings_is_not_installed_twice(install, project):
    assert install("--scope", "project").code == 0

    result = install()

    assert result.code == 0, result.err
    assert not local_settings(project).exists(), "a second hook would inject the memory twice"
    assert result.lines[0] == (f"unchanged: the SessionStart hook is already in {shared_settings(project)} "
                               f"(nothing added to {local_settings(project)})")


def test_an_earlier_absolute_install_in_the_shared_files_is_pointed_out(install, project):
    shared_settings(project).parent.mkdir()
    shared_settings(project).write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [
        {"type": "command", "command": f"{VENV_BIN}/iflow-memory hook session-start"}]}]}}), encoding="utf-8")
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"iflow-memory": {
        "command": f"{VENV_BIN}/iflow-memory", "args": ["serve"]}}}), encoding="utf-8")

    result = install()

    assert result.code == 0, result.err
    notes = [line for line in result.lines if line.startswith("note:")]
    assert len(notes) == 2 and all("--scope project" in note for note in notes), result.out
    assert str(shared_settings(project)) in notes[0] and str(project / ".mcp.json") in notes[1]


def test_a_hook_in_the_users_settings_is_not_installed_twice(install, project, isolated_home):
    assert install("--scope", "user").code == 0

    result = install()

    assert result.code == 0, result.err
    assert not local_settings(project).exists()
    assert result.lines[0].startswith(f"unchanged: the SessionStart hook is already in {isolated_home}/.claude/")
    assert not any(line.startswith("note:") for line in result.lines), "the user's own file is not shared"


def test_project_scope_warns_when_a_personal_hook_would_run_too(install, project):
    assert install().code == 0

    result = install("--scope", "project")

    assert result.code == 0, result.err
    assert hook_commands(shared_settings(project)) == [PORTABLE_HOOK]
    assert (f"note: {local_settings(project)} also runs the iflow-memory hook; remove it there or sessions get "
            "the memory twice") in result.lines


def test_project_scope_says_when_iflow_memory_is_not_on_path(install, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))

    result = install("--scope", "project")

    assert result.code == 0, result.err
    assert any(line.startswith("note: `iflow-memory` is not on PATH") for line in result.lines), result.out


@pytest.mark.parametrize("ignored", [False, True])
def test_a_personal_settings_file_git_would_commit_is_pointed_out(install, project, ignored):
    git(project, "init", "-q")
    if ignored:
        (project / ".gitignore").write_text(".claude/settings.local.json\n", encoding="utf-8")

    result = install()

    assert result.code == 0, result.err
    noted = any(line.startswith("note: git does not ignore") for line in result.lines)
    assert noted is not ignored, result.out


def test_help_describes_scopes_and_exit_statuses(capsys):
    parser = argparse.ArgumentParser(prog="iflow-memory")
    install_claude.add_command(parser.add_subparsers(), argparse.RawDescriptionHelpFormatter)

    with pytest.raises(SystemExit):
        parser.parse_args(["install-claude", "--help"])
    text = capsys.readouterr().out

    assert "--scope {local,project,user}" in text
    assert "settings.local.json" in text and ".mcp.json" in text and "exit status: 0" in text
    assert parser.parse_args(["install-claude"]).scope == "local"


@pytest.mark.slow
def test_the_installed_hook_command_works(tmp_path, isolated_home, install):
    project = tmp_path / "demo-project"
    shutil.copytree(DEMO_PROJECT, project)
    assert install(target=project).code == 0
    [command] = hook_commands(local_settings(project))
    env = app_env(isolated_home)
    env.pop("CLAUDE_PROJECT_DIR", None)

    result = subprocess.run(shlex.split(command), input=json.dumps({"source": "startup", "cwd": str(project)}),
                            env=env, cwd=str(project), capture_output=True, text=True, timeout=TIMEOUT_S)

    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert len(entry_headers(answer["hookSpecificOutput"]["additionalContext"])) == 12
    assert (isolated_home / ".claude" / "iflow" / "memory" / "memory.db").is_file(), "default global store"


@pytest.mark.slow
@pytest.mark.parametrize("scope", ["local", "project"])
def test_the_installed_mcp_command_starts_the_server(install, project, isolated_home, scope):
    assert install("--scope", scope).code == 0
    entry = (local_server(isolated_home, project) if scope == "local"
             else read(project / ".mcp.json")["mcpServers"]["iflow-memory"])
    env = app_env(isolated_home)
    env["PATH"] = os.pathsep.join([VENV_BIN, env.get("PATH", "")])  # a project-scope command comes from PATH

    result = subprocess.run([entry["command"], *entry["args"], "--help"], env=env, cwd=str(project),
                            capture_output=True, text=True, timeout=TIMEOUT_S)

    assert result.returncode == 0, result.stderr
    assert "MCP server" in result.stdout
