"""`iflow-memory install-claude`: writes the SessionStart hook and the MCP server entry, idempotently."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from typing import Any

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


def _load(path: str) -> dict[str, Any]:
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not valid JSON ({exc.msg}, line {exc.lineno})") from exc
    if not isinstance(data, dict):
        raise ValueError(f"{path} does not hold a JSON object")
    return data


def _save(path: str, data: dict[str, Any], original_exists: bool) -> str:
    """Write atomically, after a timestamped backup of the previous file; returns the backup path."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    backup = ""
    if original_exists:
        backup = f"{path}.bak-{time.strftime('%Y%m%d-%H%M%S')}"
        shutil.copy2(path, backup)
    temp = f"{path}.tmp-{os.getpid()}"
    with open(temp, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2)
        handle.write("\n")
    os.replace(temp, path)
    return backup


def install_hook(settings_path: str, command: str) -> str:
    """Add the SessionStart hook unless an iflow-memory hook is there; returns what happened."""
    data = _load(settings_path)
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
    backup = _save(settings_path, data, os.path.exists(settings_path))
    return f"updated {settings_path}" + (f" (backup: {backup})" if backup else "")


def install_mcp(mcp_path: str, command: str) -> str:
    """Add or refresh the iflow-memory MCP server entry, keeping every other server."""
    data = _load(mcp_path)
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise ValueError(f"{mcp_path}: \"mcpServers\" must be a JSON object")
    wanted = mcp_entry(command)
    if servers.get(SERVER_NAME) == wanted:
        return f"unchanged {mcp_path} (server already registered)"
    servers[SERVER_NAME] = wanted
    backup = _save(mcp_path, data, os.path.exists(mcp_path))
    return f"updated {mcp_path}" + (f" (backup: {backup})" if backup else "")


def install(project: str) -> int:
    """Write `<project>/.claude/settings.json` and `<project>/.mcp.json`; exit 1 on unreadable JSON."""
    command = cli_command()
    try:
        print(install_hook(os.path.join(project, ".claude", "settings.json"), command))
        print(install_mcp(os.path.join(project, ".mcp.json"), command))
    except (ValueError, OSError) as exc:
        print(f"iflow-memory: {exc}; that file was left unchanged", file=sys.stderr)
        return 1
    return 0
