"""Claude Code's JSON config files as `install-claude` and `doctor` see them.

Read without following a link, changed entry by entry (every other key is kept), and written atomically after
a private copy of the previous text. The copies go to the user's cache directory, never beside the file: a
`.bak` in a project is one `git add -A` away from being committed, tokens of other MCP servers included.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from typing import Any, Optional, Sequence

from memory_apps.claude.events import BY_NAME
from memory_apps.files import (
    BANK_FILE_LIMIT, PRIVATE, SMALL_FILE_LIMIT, atomic_write_text, read_text_no_follow,
)

SERVER_NAME = "iflow-memory"
SESSION_START = "SessionStart"
DEFER_FLAG = "--defer-to-project"
"""What a user-scope hook carries: it stays quiet in a project whose own settings run the hook (ADR 20)."""
PROJECT_SETTINGS = ("settings.json", "settings.local.json")
# ~/.claude.json also keeps Claude Code's per-project state, so it grows well past a settings file.
CLAUDE_JSON_LIMIT = BANK_FILE_LIMIT


def load_object(path: str, limit: int = SMALL_FILE_LIMIT) -> tuple[dict[str, Any], Optional[str]]:
    """The JSON object in `path` and its text (None when there is no file); a link is refused, never read."""
    try:
        text = read_text_no_follow(path, limit)
    except FileNotFoundError:
        return {}, None
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not valid JSON ({exc.msg}, line {exc.lineno})") from exc
    except RecursionError as exc:
        raise ValueError(f"{path} nests too deeply to read") from exc
    if not isinstance(data, dict):
        raise ValueError(f"{path} does not hold a JSON object")
    return data, text


def read_quietly(path: str, limit: int = SMALL_FILE_LIMIT) -> dict[str, Any]:
    """The JSON object in `path`, or {} when it is missing, a link, unreadable or not a JSON object."""
    try:
        return load_object(path, limit)[0]
    except (ValueError, OSError):
        return {}


def backup_dir() -> str:
    """Where copies of changed config files go: `iflow-memory/install-claude-backups` in the user's cache."""
    cache = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(cache):  # the XDG spec: a relative value is ignored
        cache = os.path.join("~", "Library", "Caches") if sys.platform == "darwin" else os.path.join("~", ".cache")
    return os.path.join(os.path.expanduser(cache), "iflow-memory", "install-claude-backups")


def _backup(path: str, original: str) -> str:
    """A private copy of `original` named after `path` and the time; returns its path."""
    directory = backup_dir()
    os.makedirs(directory, mode=0o700, exist_ok=True)
    stem = f"{time.strftime('%Y%m%d-%H%M%S')}-{os.path.abspath(path).strip(os.sep).replace(os.sep, '_')}"
    backup, n = os.path.join(directory, stem), 1
    while os.path.lexists(backup):
        n += 1
        backup = os.path.join(directory, f"{stem}-{n}")
    atomic_write_text(backup, original, mode=PRIVATE)  # the old file may hold other servers' tokens
    return backup


def save(path: str, data: dict[str, Any], original: Optional[str]) -> str:
    """Write `data` atomically (never through a link), after a backup of the previous text; returns the backup
    path ("" for a new file)."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    backup = _backup(path, original) if original is not None else ""
    # A new file is private; an old one keeps its mode. Non-ASCII text stays as it was, not \u-escaped.
    atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return backup


def child_object(data: dict[str, Any], keys: Sequence[str], path: str) -> dict[str, Any]:
    """The object at `keys` inside `data`, created when absent; ValueError naming the file when it is not one."""
    node = data
    for depth, key in enumerate(keys):
        node = node.setdefault(key, {})
        if not isinstance(node, dict):
            raise ValueError(f"{path}: \"{'.'.join(keys[: depth + 1])}\" must be a JSON object")
    return node


def event_groups(data: dict[str, Any], event: str, path: str, create: bool = True) -> Optional[list]:
    """The `hooks.<event>` list of a settings object (created when absent, or None when `create` is False);
    ValueError naming the file when `hooks` or the list has the wrong shape."""
    hooks = child_object(data, ["hooks"], path) if create else data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError(f"{path}: \"hooks\" must be a JSON object")
    groups = hooks.setdefault(event, []) if create else hooks.get(event)
    if groups is not None and not isinstance(groups, list):
        raise ValueError(f"{path}: \"hooks.{event}\" must be a JSON list")
    return groups


def _argv(command: object) -> list[str]:
    """A command line's words as a shell splits them ([] when it cannot)."""
    try:
        return shlex.split(str(command))
    except ValueError:
        return []


def is_our_hook(command: object, event: str = SESSION_START) -> bool:
    """Whether a hook command runs iflow-memory's hook for `event` (any installation of it, any flags)."""
    argv, words = _argv(command), ["hook", BY_NAME[event].command]
    runs_hook = any(argv[i:i + 2] == words for i in range(1, len(argv) - 1))
    return runs_hook and (os.path.basename(argv[0]) == "iflow-memory" or "memory_apps.cli" in argv)


def defers_to_project(command: object) -> bool:
    """Whether a hook command stays quiet in a project that runs the hook itself (a user-scope install's)."""
    return DEFER_FLAG in _argv(command)


def remove_our_hook(groups: list, event: str = SESSION_START, keep: Optional[dict] = None) -> bool:
    """Take iflow-memory's hooks (all but `keep`) out of an event's list, a group left empty too; True when one
    was in."""
    removed = False
    for group in list(groups):
        hooks = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(hooks, list):
            continue
        kept = [h for h in hooks
                if h is keep or not (isinstance(h, dict) and is_our_hook(h.get("command", ""), event))]
        if len(kept) != len(hooks):
            removed = True
            if kept:
                group["hooks"] = kept
            else:
                groups.remove(group)
    return removed


def project_hook_file(project: str, event: str = SESSION_START) -> Optional[str]:
    """The project's own settings file (shared or personal) that runs the hook for `event` in its sessions, or
    None."""
    for name in PROJECT_SETTINGS:
        path = os.path.join(project, ".claude", name)
        command = hook_in_file(path, event)
        if command is not None and not defers_to_project(command):
            return path
    return None


def our_hooks(groups: object, event: str = SESSION_START) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every (group, hook) of iflow-memory's hook in an event's list."""
    found = []
    for group in groups if isinstance(groups, list) else []:
        hooks = group.get("hooks") if isinstance(group, dict) else None
        for hook in hooks if isinstance(hooks, list) else []:  # a hand-edited file may hold anything here
            if isinstance(hook, dict) and is_our_hook(hook.get("command", ""), event):
                found.append((group, hook))
    return found


def our_hook(groups: object, event: str = SESSION_START) -> Optional[dict[str, Any]]:
    """The (first) iflow-memory hook in an event's list, or None."""
    found = our_hooks(groups, event)
    return found[0][1] if found else None


def hook_in_file(path: str, event: str = SESSION_START) -> Optional[str]:
    """The iflow-memory hook command for `event` in a settings file, or None (also for a missing or unreadable
    file)."""
    hooks = read_quietly(path).get("hooks")
    hook = our_hook(hooks.get(event), event) if isinstance(hooks, dict) else None
    return str(hook.get("command")) if hook else None


def server_in_file(path: str, keys: Sequence[str] = ()) -> Optional[dict[str, Any]]:
    """The iflow-memory MCP server entry under `keys` of a config file, or None."""
    node: Any = read_quietly(path, CLAUDE_JSON_LIMIT)
    for key in [*keys, "mcpServers", SERVER_NAME]:
        node = node.get(key) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else None


def names_a_machine_path(command: object) -> bool:
    """Whether a command starts with an absolute path (it only works on the machine that wrote it)."""
    argv = _argv(command)
    return bool(argv) and os.path.isabs(argv[0])
