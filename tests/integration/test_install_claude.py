"""`iflow-memory install-claude --project P`: the SessionStart hook and the MCP server entry, idempotently."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.integration._helpers import PYTHON, TIMEOUT_S, app_env, entry_headers, run_module

pytestmark = pytest.mark.slow

DEMO_PROJECT = Path(__file__).resolve().parents[2] / "examples" / "demo-project"
BACKUP = re.compile(r"^(?P<name>.+)\.bak-\d{8}-\d{6}(-\d+)?$")


def install(project: Path, home: Path) -> subprocess.CompletedProcess:
    return run_module("memory_apps.cli", ["install-claude", "--project", project], home, cwd=project)


def settings_path(project: Path) -> Path:
    return project / ".claude" / "settings.json"


def mcp_path(project: Path) -> Path:
    return project / ".mcp.json"


def backups(directory: Path, name: str) -> list[Path]:
    return sorted(p for p in directory.iterdir() if (m := BACKUP.match(p.name)) and m["name"] == name)


def our_hooks(settings: dict) -> list[dict]:
    return [hook for group in settings["hooks"]["SessionStart"] for hook in group.get("hooks", [])
            if hook.get("command", "").endswith("hook session-start")]


@pytest.fixture
def project(tmp_path) -> Path:
    path = tmp_path / "app"
    path.mkdir()
    return path


def test_fresh_project_gets_the_hook_and_the_server(project, isolated_home):
    result = install(project, isolated_home)

    assert result.returncode == 0, result.stderr
    settings = json.loads(settings_path(project).read_text(encoding="utf-8"))
    hooks = our_hooks(settings)
    assert len(hooks) == 1
    assert hooks[0]["type"] == "command"
    assert hooks[0]["command"].endswith("hook session-start")
    servers = json.loads(mcp_path(project).read_text(encoding="utf-8"))["mcpServers"]
    assert set(servers["iflow-memory"]) == {"command", "args"}
    assert servers["iflow-memory"]["args"] == ["serve"]
    assert shlex.split(hooks[0]["command"])[0] == servers["iflow-memory"]["command"]
    assert "updated" in result.stdout
    assert not backups(project / ".claude", "settings.json") and not backups(project, ".mcp.json"), \
        "nothing to back up on a fresh project"


def test_second_run_changes_nothing(project, isolated_home):
    assert install(project, isolated_home).returncode == 0
    before = {p: p.read_bytes() for p in (settings_path(project), mcp_path(project))}
    listing = sorted(p.relative_to(project) for p in project.rglob("*"))

    again = install(project, isolated_home)

    assert again.returncode == 0, again.stderr
    assert {p: p.read_bytes() for p in before} == before, "files are byte-identical"
    assert sorted(p.relative_to(project) for p in project.rglob("*")) == listing, "no backups, no temp files"
    lines = again.stdout.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith("unchanged") for line in lines), again.stdout


def test_existing_hooks_servers_and_settings_are_kept_and_backed_up(project, isolated_home):
    settings_before = {
        "permissions": {"allow": ["Bash(npm test:*)"]},
        "model": "opus",
        "hooks": {
            "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}],
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}],
        },
    }
    mcp_before = {"mcpServers": {"playwright": {"command": "npx", "args": ["@playwright/mcp@latest"]}},
                  "other": True}
    settings_path(project).parent.mkdir()
    settings_text = json.dumps(settings_before, indent=4)  # formatting the tool will not reproduce
    mcp_text = json.dumps(mcp_before)
    settings_path(project).write_text(settings_text, encoding="utf-8")
    mcp_path(project).write_text(mcp_text, encoding="utf-8")

    result = install(project, isolated_home)

    assert result.returncode == 0, result.stderr
    settings = json.loads(settings_path(project).read_text(encoding="utf-8"))
    assert settings["permissions"] == settings_before["permissions"] and settings["model"] == "opus"
    assert settings["hooks"]["PreToolUse"] == settings_before["hooks"]["PreToolUse"]
    assert settings["hooks"]["SessionStart"][0] == settings_before["hooks"]["SessionStart"][0]
    assert len(our_hooks(settings)) == 1
    mcp = json.loads(mcp_path(project).read_text(encoding="utf-8"))
    assert mcp["other"] is True
    assert mcp["mcpServers"]["playwright"] == mcp_before["mcpServers"]["playwright"]
    assert mcp["mcpServers"]["iflow-memory"]["args"] == ["serve"]

    settings_backups = backups(project / ".claude", "settings.json")
    mcp_backups = backups(project, ".mcp.json")
    assert len(settings_backups) == 1 and len(mcp_backups) == 1
    assert settings_backups[0].read_text(encoding="utf-8") == settings_text
    assert mcp_backups[0].read_text(encoding="utf-8") == mcp_text
    assert "backup" in result.stdout

    again = install(project, isolated_home)
    assert again.returncode == 0
    assert len(backups(project / ".claude", "settings.json")) == 1, "an unchanged file is not backed up again"


def test_invalid_settings_json_exits_1_and_leaves_the_file(project, isolated_home):
    settings_path(project).parent.mkdir()
    broken = '{"hooks": {"SessionStart": [ oops\n'
    settings_path(project).write_text(broken, encoding="utf-8")

    result = install(project, isolated_home)

    assert result.returncode == 1
    assert settings_path(project).read_text(encoding="utf-8") == broken
    assert not backups(project / ".claude", "settings.json")
    assert "Traceback" not in result.stderr
    assert result.stderr.strip()


def test_invalid_json_error_names_the_file(project, isolated_home):
    """With two files in play, the error must say which one is broken."""
    settings_path(project).parent.mkdir()
    settings_path(project).write_text("{not json", encoding="utf-8")

    result = install(project, isolated_home)

    assert result.returncode == 1
    assert "settings.json" in result.stderr, result.stderr


@pytest.mark.parametrize(
    "name, content",
    [("settings", '{"hooks": []}'), ("settings", '{"hooks": {"SessionStart": {}}}'), ("mcp", '{"mcpServers": []}')],
    ids=["hooks-is-a-list", "session-start-is-an-object", "servers-is-a-list"],
)
def test_json_of_the_wrong_shape_is_reported_without_a_traceback(project, isolated_home, name, content):
    path = settings_path(project) if name == "settings" else mcp_path(project)
    path.parent.mkdir(exist_ok=True)
    path.write_text(content, encoding="utf-8")

    result = install(project, isolated_home)

    assert result.returncode == 1
    assert "Traceback" not in result.stderr, result.stderr
    assert path.read_text(encoding="utf-8") == content


def test_the_installed_hook_command_works(tmp_path, isolated_home):
    project = tmp_path / "demo-project"
    shutil.copytree(DEMO_PROJECT, project)
    assert install(project, isolated_home).returncode == 0
    command = our_hooks(json.loads(settings_path(project).read_text(encoding="utf-8")))[0]["command"]
    argv = shlex.split(command)
    assert Path(argv[0]).is_absolute() and Path(argv[0]).parent == Path(PYTHON).parent, argv
    env = app_env(isolated_home)
    env.pop("CLAUDE_PROJECT_DIR", None)

    result = subprocess.run(argv, input=json.dumps({"source": "startup", "cwd": str(project)}), env=env,
                            cwd=str(project), capture_output=True, text=True, timeout=TIMEOUT_S)

    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    context = answer["hookSpecificOutput"]["additionalContext"]
    assert answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert len(entry_headers(context)) == 12
    assert (isolated_home / ".claude" / "iflow" / "memory" / "memory.db").is_file(), "default global store"


def test_the_installed_mcp_command_starts_the_server(tmp_path, isolated_home):
    project = tmp_path / "app"
    project.mkdir()
    assert install(project, isolated_home).returncode == 0
    entry = json.loads(mcp_path(project).read_text(encoding="utf-8"))["mcpServers"]["iflow-memory"]

    result = subprocess.run([entry["command"], *entry["args"], "--help"], env=app_env(isolated_home),
                            cwd=str(project), capture_output=True, text=True, timeout=TIMEOUT_S)

    assert result.returncode == 0, result.stderr
    assert "MCP server" in result.stdout
    assert Path(PYTHON).exists()
