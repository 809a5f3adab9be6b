"""The files `iflow-memory install-claude` writes, and how its tests read them."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from memory_apps.claude import install as install_claude
from tests._helpers import PYTHON

VENV_BIN = str(Path(PYTHON).parent)
PORTABLE_HOOK = "iflow-memory hook session-start"
EVENT_COMMANDS = {"SessionStart": "session-start", "UserPromptSubmit": "user-prompt-submit",
                  "PreToolUse": "pre-tool-use"}
MCP_HINT = "pip install 'iflow-memory[mcp]'"


class Installed:
    """One in-process `install-claude` run: exit status and output."""

    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err
        self.lines = out.strip().splitlines()


def parser() -> argparse.ArgumentParser:
    """The `iflow-memory` parser with only the subcommand install_claude registers."""
    cli = argparse.ArgumentParser(prog="iflow-memory")
    install_claude.add_command(cli.add_subparsers(), argparse.RawDescriptionHelpFormatter)
    return cli


def read(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def shared_settings(project: Path) -> Path:
    return project / ".claude" / "settings.json"


def local_settings(project: Path) -> Path:
    return project / ".claude" / "settings.local.json"


def claude_json(home: Path) -> Path:
    return home / ".claude.json"


def hook_commands(path: Path, event: str = "SessionStart") -> list[str]:
    """Every iflow-memory hook command for `event` in a settings file."""
    groups = read(path).get("hooks", {}).get(event, [])
    return [hook["command"] for group in groups for hook in group.get("hooks", [])
            if f"hook {EVENT_COMMANDS[event]}" in hook["command"]]


def _runs_ours(group: dict, event: str) -> bool:
    return any(f"hook {EVENT_COMMANDS[event]}" in hook.get("command", "") for hook in group.get("hooks", []))


def our_entries(path: Path) -> dict[str, list[dict]]:
    """Per event, the groups that hold an iflow-memory hook, as written (matcher, hooks with their timeouts)."""
    hooks = read(path).get("hooks", {}) if path.exists() else {}
    found = {event: [group for group in hooks.get(event, []) if _runs_ours(group, event)] for event in EVENT_COMMANDS}
    return {event: groups for event, groups in found.items() if groups}


def local_server(home: Path, project: Path) -> dict:
    return read(claude_json(home))["projects"][os.path.realpath(project)]["mcpServers"]["iflow-memory"]


def files(directory: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()} if directory.exists() else {}


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777
