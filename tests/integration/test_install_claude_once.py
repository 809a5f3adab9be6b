"""One SessionStart hook per project, whatever the order of `install-claude` scopes (issue 21, doorway 5): every
order of local, project and user leaves one hook that injects in the project, and the output says which file
already has one. The hooks are run as Claude Code runs them: every one of its files' hook commands, in the
project's directory."""

from __future__ import annotations

import itertools
import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.integration._claude_files import VENV_BIN, hook_commands, local_settings, shared_settings
from tests._helpers import DEMO_PROJECT, TIMEOUT_S, app_env, entry_headers

pytestmark = pytest.mark.slow


def user_settings(home: Path) -> Path:
    return home / ".claude" / "settings.json"


def installed_hooks(project: Path, home: Path) -> list[str]:
    """Every iflow-memory hook command Claude Code runs for a session in `project`."""
    paths = (shared_settings(project), local_settings(project), user_settings(home))
    return [command for path in paths if path.exists() for command in hook_commands(path)]


def injected(command: str, project: Path, home: Path) -> int:
    """How many entries one hook command injects at a session start in `project`."""
    env = app_env(home, {"CLAUDE_PROJECT_DIR": str(project), "IFLOW_MEMORY_SESSION_DEADLINE_S": "60"})
    env["PATH"] = os.pathsep.join([VENV_BIN, env.get("PATH", "")])  # a project-scope command comes from PATH
    result = subprocess.run(shlex.split(command), input=json.dumps({"source": "startup", "cwd": str(project)}),
                            env=env, cwd=str(project), capture_output=True, text=True, timeout=TIMEOUT_S)
    assert result.returncode == 0, result.stderr
    return len(entry_headers(json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]))


@pytest.mark.parametrize("order", list(itertools.permutations(["local", "project", "user"])), ids="-".join)
def test_any_order_of_scopes_leaves_one_hook_that_injects(claude_install, project, isolated_home, order):
    for scope in order:
        assert claude_install("--scope", scope).code == 0

    for event in ("SessionStart", "UserPromptSubmit", "PreToolUse"):
        project_own = [c for path in (shared_settings(project), local_settings(project)) if path.exists()
                       for c in hook_commands(path, event)]
        [user_hook] = hook_commands(user_settings(isolated_home), event)

        assert len(project_own) == 1, f"the project's own files run the {event} hook once"
        assert user_hook.endswith("--defer-to-project"), \
            f"the user's {event} hook serves every other project and leaves this one to its own"


def test_local_project_user_inject_the_memory_once_and_say_where_the_hook_is(claude_install, tmp_path,
                                                                            isolated_home):
    project, elsewhere = tmp_path / "demo-project", tmp_path / "other-project"
    shutil.copytree(DEMO_PROJECT, project)
    shutil.copytree(DEMO_PROJECT, elsewhere)

    outputs = [claude_install("--scope", scope, target=project) for scope in ("local", "project", "user")]
    counts = [injected(command, project, isolated_home) for command in installed_hooks(project, isolated_home)]
    [user_hook] = hook_commands(user_settings(isolated_home))

    assert all(result.code == 0 for result in outputs)
    assert sorted(counts) == [0, 12], "one hook injects the 12 entries; the user's stays quiet here"
    assert injected(user_hook, elsewhere, isolated_home) == 12, "a project without its own hook gets the user's"
    assert any(f"SessionStart, UserPromptSubmit and PreToolUse hooks removed: {shared_settings(project)} runs them "
               "now" in line for line in outputs[1].lines), outputs[1].out
    assert f"note: {shared_settings(project)} already runs the SessionStart, UserPromptSubmit and PreToolUse hooks " \
           "for this project; the user-scope hooks stay quiet there, so its sessions get the memory once" \
           in outputs[2].lines, outputs[2].out


def test_a_personal_hook_beside_the_shared_one_goes_at_the_next_local_install(claude_install, project):
    assert claude_install("--scope", "project").code == 0
    local_settings(project).write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [
        {"type": "command", "command": f"{VENV_BIN}/iflow-memory hook session-start", "timeout": 5}]}]}}),
        encoding="utf-8")  # what two installs left before they took care of each other

    result = claude_install()

    assert result.code == 0, result.err
    assert hook_commands(local_settings(project)) == [] and len(hook_commands(shared_settings(project))) == 1
    assert any(line.startswith(f"updated {local_settings(project)} (SessionStart hook removed: "
                               f"{shared_settings(project)} runs it now") for line in result.lines), result.out
