"""What `iflow-memory install-claude` refuses (invalid or wrongly shaped JSON, linked files, a missing project:
exit 1, nothing written) and what it points out (a hook already installed elsewhere, an earlier absolute install
in the shared files, no `iflow-memory` on PATH, a personal file git would commit)."""

from __future__ import annotations

import json

import pytest

from tests.integration._claude_files import (
    PORTABLE_HOOK, VENV_BIN, claude_json, files, hook_commands, local_settings, shared_settings,
)
from tests._helpers import git


def test_invalid_json_exits_1_names_the_file_and_writes_nothing(claude_install, project, isolated_home, user_cache):
    broken = '{"projects": { oops\n'
    claude_json(isolated_home).write_text(broken, encoding="utf-8")

    result = claude_install()

    assert result.code == 1
    assert str(claude_json(isolated_home)) in result.err and "not valid JSON" in result.err, result.err
    assert "Traceback" not in result.err
    assert claude_json(isolated_home).read_text(encoding="utf-8") == broken
    assert not local_settings(project).exists(), "the hook is not written either"
    assert not user_cache.exists()


@pytest.mark.parametrize(
    "scope, name, content",
    [("project", ".claude/settings.json", '{"hooks": []}'),
     ("project", ".claude/settings.json", '{"hooks": {"SessionStart": {}}}'),
     ("project", ".mcp.json", '{"mcpServers": []}'),
     ("local", "~/.claude.json", '{"projects": []}'),
     ("local", ".claude/settings.local.json", '[1, 2]')],
    ids=["hooks-is-a-list", "session-start-is-an-object", "servers-is-a-list", "projects-is-a-list", "not-an-object"],
)
def test_json_of_the_wrong_shape_is_reported_without_a_traceback(claude_install, project, isolated_home, scope, name,
                                                                 content):
    path = isolated_home / name[2:] if name.startswith("~/") else project / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(content, encoding="utf-8")
    before = {**files(project), **files(isolated_home)}

    result = claude_install("--scope", scope)

    assert result.code == 1
    assert str(path) in result.err and "Traceback" not in result.err, result.err
    assert {**files(project), **files(isolated_home)} == before, "nothing written"


@pytest.mark.parametrize("scope, name", [("local", ".claude/settings.local.json"), ("local", "~/.claude.json"),
                                         ("project", ".mcp.json"), ("project", ".claude/settings.json"),
                                         ("user", "~/.claude/settings.json")])
def test_a_linked_config_file_is_refused(claude_install, project, isolated_home, tmp_path, scope, name):
    secret = tmp_path / "secret.json"
    secret.write_text('{"token": "s3cr3t"}', encoding="utf-8")
    link = isolated_home / name[2:] if name.startswith("~/") else project / name
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(secret)

    result = claude_install("--scope", scope)

    assert result.code == 1
    assert "symbolic link" in result.err and str(link) in result.err, result.err
    assert link.is_symlink() and secret.read_text(encoding="utf-8") == '{"token": "s3cr3t"}'
    assert [p for p in project.rglob("*") if p.is_file() and not p.is_symlink()] == [], "nothing written"


def test_a_missing_project_fails_and_creates_nothing(claude_install, tmp_path, isolated_home):
    missing = tmp_path / "no-such-project"

    result = claude_install(target=missing)

    assert result.code == 1
    assert str(missing) in result.err
    assert not missing.exists() and not claude_json(isolated_home).exists()


def test_a_hook_in_the_shared_settings_is_not_installed_twice(claude_install, project):
    assert claude_install("--scope", "project").code == 0

    result = claude_install()

    assert result.code == 0, result.err
    assert not local_settings(project).exists(), "a second hook would inject the memory twice"
    assert result.lines[0] == (f"unchanged: the SessionStart, UserPromptSubmit and PreToolUse hooks are already in "
                               f"{shared_settings(project)} (nothing added to {local_settings(project)})")


def test_an_earlier_absolute_install_in_the_shared_files_is_pointed_out(claude_install, project):
    shared_settings(project).parent.mkdir()
    shared_settings(project).write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [
        {"type": "command", "command": f"{VENV_BIN}/iflow-memory hook session-start"}]}]}}), encoding="utf-8")
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"iflow-memory": {
        "command": f"{VENV_BIN}/iflow-memory", "args": ["serve"]}}}), encoding="utf-8")

    result = claude_install()

    assert result.code == 0, result.err
    notes = [line for line in result.lines if line.startswith("note:")]
    assert len(notes) == 2 and all("--scope project" in note for note in notes), result.out
    assert str(shared_settings(project)) in notes[0] and str(project / ".mcp.json") in notes[1]


def test_a_hook_in_the_users_settings_is_not_installed_twice(claude_install, project, isolated_home):
    assert claude_install("--scope", "user").code == 0

    result = claude_install()

    assert result.code == 0, result.err
    assert not local_settings(project).exists()
    assert result.lines[0].startswith(f"unchanged: the SessionStart, UserPromptSubmit and PreToolUse hooks are "
                                      f"already in {isolated_home}/.claude/")
    assert not any(line.startswith("note:") for line in result.lines), "the user's own file is not shared"


def test_project_scope_takes_the_personal_hook_out_and_says_so(claude_install, project):
    assert claude_install().code == 0

    result = claude_install("--scope", "project")

    assert result.code == 0, result.err
    assert hook_commands(shared_settings(project)) == [PORTABLE_HOOK]
    assert hook_commands(local_settings(project)) == [], "a second hook would inject the memory twice"
    assert any(line.startswith(f"updated {local_settings(project)} (SessionStart, UserPromptSubmit and PreToolUse "
                               f"hooks removed: {shared_settings(project)} runs them now") for line in result.lines), \
        result.out


def test_project_scope_says_when_iflow_memory_is_not_on_path(claude_install, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))

    result = claude_install("--scope", "project")

    assert result.code == 0, result.err
    assert any(line.startswith("note: `iflow-memory` is not on PATH") for line in result.lines), result.out


@pytest.mark.parametrize("ignored", [False, True])
def test_a_personal_settings_file_git_would_commit_is_pointed_out(claude_install, project, ignored):
    git(project, "init", "-q")
    if ignored:
        (project / ".gitignore").write_text(".claude/settings.local.json\n", encoding="utf-8")

    result = claude_install()

    assert result.code == 0, result.err
    noted = any(line.startswith("note: git does not ignore") for line in result.lines)
    assert noted is not ignored, result.out
