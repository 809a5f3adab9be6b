"""The commands `iflow-memory install-claude` wrote run: the hook injects the demo project's memory, the MCP
command starts the server."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess

import pytest

from tests.integration._claude_files import VENV_BIN, hook_commands, local_server, local_settings, read
from tests._helpers import DEMO_PROJECT, TIMEOUT_S, app_env, entry_headers


@pytest.mark.slow
def test_the_installed_hook_command_works(tmp_path, isolated_home, claude_install):
    project = tmp_path / "demo-project"
    shutil.copytree(DEMO_PROJECT, project)
    assert claude_install(target=project).code == 0
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
def test_the_installed_mcp_command_starts_the_server(claude_install, project, isolated_home, scope):
    assert claude_install("--scope", scope).code == 0
    entry = (local_server(isolated_home, project) if scope == "local"
             else read(project / ".mcp.json")["mcpServers"]["iflow-memory"])
    env = app_env(isolated_home)
    env["PATH"] = os.pathsep.join([VENV_BIN, env.get("PATH", "")])  # a project-scope command comes from PATH

    result = subprocess.run([entry["command"], *entry["args"], "--help"], env=env, cwd=str(project),
                            capture_output=True, text=True, timeout=TIMEOUT_S)

    assert result.returncode == 0, result.stderr
    assert "MCP server" in result.stdout
