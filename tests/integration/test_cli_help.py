"""The help and usage of every `iflow-memory` command: `--help` with examples, the top-level usage listing every
command once, and the console script the README documents."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests._helpers import PYTHON, TIMEOUT_S, app_env, run_in_process

pytestmark = pytest.mark.slow

SCRIPT = Path(PYTHON).parent / "iflow-memory"
COMMANDS = ["inject", "write", "import", "embed", "search", "list", "show", "delete", "stats", "export", "doctor",
            "serve", "hook", "install-claude", "migrate", "maintain", "promote", "trust"]


def test_help_of_every_command(tmp_path, isolated_home):
    for command in [None, *COMMANDS]:
        args = ["--help"] if command is None else [command, "--help"]
        result = run_in_process("memory_apps.cli", args, isolated_home, cwd=tmp_path)
        assert result.returncode == 0, (command, result.stderr)
        assert "example" in result.stdout.lower(), (command, result.stdout)
        assert "usage:" in result.stdout


def test_serve_hook_and_install_claude_help(tmp_path, isolated_home):
    serve = run_in_process("memory_apps.cli", ["serve", "--help"], isolated_home, cwd=tmp_path)
    hook = run_in_process("memory_apps.cli", ["hook", "--help"], isolated_home, cwd=tmp_path)
    install = run_in_process("memory_apps.cli", ["install-claude", "--help"], isolated_home, cwd=tmp_path)

    assert serve.returncode == 0 and ".mcp.json" in serve.stdout and "--global-store" in serve.stdout
    assert hook.returncode == 0 and "session-start" in hook.stdout and "clear and compact" in hook.stdout
    assert install.returncode == 0 and "--project" in install.stdout


def test_no_command_prints_help_and_exits_1(tmp_path, isolated_home):
    """The console script the README documents, as a process of its own."""
    result = subprocess.run([str(SCRIPT)], env=app_env(isolated_home), cwd=tmp_path, capture_output=True,
                            text=True, timeout=TIMEOUT_S)

    assert result.returncode == 1
    assert "usage: iflow-memory" in result.stdout
    for command in COMMANDS:
        assert command in result.stdout
