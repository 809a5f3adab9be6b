"""`iflow-memory install-claude`: writes the SessionStart hook and the MCP server entry, idempotently."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any, Optional

from memory_adapters.regular_files import SMALL_FILE_LIMIT
from memory_adapters.safe_files import PRIVATE, atomic_write_text, existing_regular, read_text_no_follow

SERVER_NAME = "iflow-memory"
HOOK_MARKER = "iflow-memory hook session-start"


def cli_command() -> str:
    """The absolute path of the `iflow-memory` script of this installation."""
    script = os.path.join(os.path.dirname(sys.executable), "iflow-memory")
    return script if os.path.exists(script) else "iflow-memory"


def hook_entry(command: str) -> dict[str, Any]:
    """The SessionStart hook group for settings.json."""
    return {"hooks": [{"type": "command", "command": f"{command} hook session-start", "timeout": 5}]}


def mcp_entry(command: str) -> dict[str, Any]:
    """The .mcp.json server entry."""
    return {"command": command, "args": ["serve"]}


def _load(path: str) -> tuple[dict[str, Any], Optional[str]]:
    """The JSON object in `path` and its text (None when there is no file); a link is refused, never read."""
    try:
        text = read_text_no_follow(path, SMALL_FILE_LIMIT)
    except FileNotFoundError:
        return {}, None
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not valid JSON ({exc.msg}, line {exc.lineno})") from exc
    if not isinstance(data, dict):
        raise ValueError(f"{path} does not hold a JSON object")
    return data, text


def _save(path: str, data: dict[str, Any], original: Optional[str]) -> str:
    """Write atomically (never through a link), after a private timestamped backup of the previous text;
    returns the backup path."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    backup = ""
    if original is not None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        backup, n = f"{path}.bak-{stamp}", 1
        while os.path.lexists(backup):
            n += 1
            backup = f"{path}.bak-{stamp}-{n}"
        atomic_write_text(backup, original, mode=PRIVATE)  # the old file may hold other servers' tokens
    atomic_write_text(path, json.dumps(data, indent=2) + "\n")
    return backup


def install_hook(settings_path: str, command: str) -> str:
    """Add the SessionStart hook unless an iflow-memory hook is there; returns what happened."""
    data, original = _load(settings_path)
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError(f"{settings_path}: \"hooks\" must be a JSON object")
    groups = hooks.setdefault("SessionStart", [])
    if not isinstance(groups, list):
        raise ValueError(f"{settings_path}: \"hooks.SessionStart\" must be a JSON list")
    for group in groups:
        for hook in group.get("hooks", []) if isinstance(group, dict) else []:
            if HOOK_MARKER in str(hook.get("command", "")):
                return f"unchanged {settings_path} (hook already installed)"
    groups.append(hook_entry(command))
    backup = _save(settings_path, data, original)
    return f"updated {settings_path}" + (f" (backup: {backup})" if backup else "")


def install_mcp(mcp_path: str, command: str) -> str:
    """Add or refresh the iflow-memory MCP server entry, keeping every other server."""
    data, original = _load(mcp_path)
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise ValueError(f"{mcp_path}: \"mcpServers\" must be a JSON object")
    wanted = mcp_entry(command)
    if servers.get(SERVER_NAME) == wanted:
        return f"unchanged {mcp_path} (server already registered)"
    servers[SERVER_NAME] = wanted
    backup = _save(mcp_path, data, original)
    return f"updated {mcp_path}" + (f" (backup: {backup})" if backup else "")


def install(project: str) -> int:
    """Write `<project>/.claude/settings.json` and `<project>/.mcp.json`; exit 1 on a missing project, unreadable
    JSON or a file that is a symbolic link."""
    if not os.path.isdir(project):
        print(f"iflow-memory: project directory {project} does not exist (nothing was written)", file=sys.stderr)
        return 1
    command = cli_command()
    settings, mcp = os.path.join(project, ".claude", "settings.json"), os.path.join(project, ".mcp.json")
    try:
        for path in (settings, mcp):
            existing_regular(path)  # refuse a link before writing either file
        print(install_hook(settings, command))
        print(install_mcp(mcp, command))
    except (ValueError, OSError) as exc:
        print(f"iflow-memory: {exc}; that file was left unchanged", file=sys.stderr)
        return 1
    return 0
