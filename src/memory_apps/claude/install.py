"""`iflow-memory install-claude`: the SessionStart hook and the MCP server, in the scopes Claude Code documents.

- local (default): the hook in `<project>/.claude/settings.local.json` and the server in `~/.claude.json` under
  the project's path: this installation's absolute paths, for this user on this machine, never committed.
- project: the hook in `.claude/settings.json` and the server in `.mcp.json`, files a team commits, so the
  commands are portable (`iflow-memory` from PATH).
- user: `~/.claude/settings.json` and the top-level servers of `~/.claude.json`: every project of this user.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import Any, Optional

from memory_apps.claude.settings import (CLAUDE_JSON_LIMIT, DEFER_FLAG, HOOK_ARGS, SERVER_NAME, child_object,
                                       defers_to_project, hook_in_file, load_object, names_a_machine_path,
                                       our_hook, remove_our_hook, save, server_in_file, session_start_groups)
from memory_apps.formatting import fail
from memory_core.errors import install_hint

SCOPES = ("local", "project", "user")
MCP_HINT = install_hint("mcp")
HOOK = "SessionStart hook"
SERVER = f"MCP server {SERVER_NAME}"


@dataclass(frozen=True)
class Targets:
    """The files one scope writes, and the other settings files Claude Code reads for the same project."""

    settings: str
    mcp_file: str
    mcp_keys: tuple[str, ...]
    other_settings: tuple[str, ...]


def targets(project: str, scope: str) -> Targets:
    """Where `scope` puts the hook and the server for `project` (an absolute path)."""
    home = os.path.expanduser("~")
    user_settings, claude_json = os.path.join(home, ".claude", "settings.json"), os.path.join(home, ".claude.json")
    shared, personal = (os.path.join(project, ".claude", name) for name in ("settings.json", "settings.local.json"))
    if scope == "project":
        return Targets(shared, os.path.join(project, ".mcp.json"), (), (personal, user_settings))
    if scope == "user":
        return Targets(user_settings, claude_json, (), (shared, personal))
    # Claude Code keys a project by the directory it runs in, as the kernel reports it: links resolved.
    return Targets(personal, claude_json, ("projects", os.path.realpath(project)), (shared, user_settings))


def machine_argv() -> list[str]:
    """This installation's `iflow-memory` by absolute path (or its Python with `-m` when there is no script)."""
    script = os.path.join(os.path.dirname(sys.executable), "iflow-memory")
    return [script] if os.path.isfile(script) else [sys.executable, "-m", "memory_apps.cli"]


def scope_argv(scope: str) -> list[str]:
    """The command a scope's files name: portable for the shared files, this installation's otherwise."""
    return ["iflow-memory"] if scope == "project" else machine_argv()


def mcp_problem() -> Optional[str]:
    """Why this Python cannot run `iflow-memory serve` (the `mcp` extra is missing or too old), or None."""
    if importlib.util.find_spec("mcp") is None:
        return "the mcp extra is not installed"
    try:
        version = importlib.metadata.version("mcp")
        major = int(version.split(".")[0])
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return None
    return None if major >= 2 else f"mcp {version} is installed; the server needs mcp 2.0 or newer"


def server_registrations(project: str) -> list[str]:
    """Where Claude Code finds an iflow-memory MCP server for `project`, one description per scope."""
    found = []
    for scope in ("local", "project", "user"):
        where = targets(os.path.abspath(project), scope)
        if server_in_file(where.mcp_file, where.mcp_keys) is not None:
            found.append(f"{where.mcp_file} ({scope} scope)")
    return found


@dataclass
class _Edit:
    """One file's planned change; written by `apply`."""

    path: str
    what: str
    data: dict[str, Any]
    original: Optional[str]
    changed: bool

    def apply(self) -> str:
        """Write the change (if any) and say truthfully what happened."""
        if not self.changed:
            return f"unchanged {self.path} ({self.what} already installed)"
        backup = save(self.path, self.data, self.original)
        verb = "created" if self.original is None else "updated"
        return f"{verb} {self.path} ({self.what}" + (f"; backup: {backup}" if backup else "") + ")"


def _hook_edits(where: Targets, command: str, scope: str) -> tuple[list[_Edit], list[str], list[str]]:
    """The hook changes (none when another settings file already runs the hook), status lines and notes.

    One hook per session, whatever the order of installs (ADR 20): a personal install adds none beside the
    project's or the user's; a project install takes the personal one out; a user-scope hook stays quiet, when
    it runs, in a project whose own settings run the hook."""
    data, original = load_object(where.settings)
    groups = session_start_groups(data, where.settings)
    hook = our_hook(groups)
    elsewhere = [(path, found) for path in where.other_settings if (found := hook_in_file(path))]
    if elsewhere and scope == "local":
        path, found = elsewhere[0]
        notes = []
        if path == where.other_settings[0] and names_a_machine_path(found):  # the project's shared settings
            notes.append(f"note: {path} is shared but names a path on this machine; "
                         "`iflow-memory install-claude --scope project` makes it portable")
        if hook is not None:  # both, from before installs took care of it: the personal one goes
            return [_removal(where.settings, path)], [], notes
        return [], [f"unchanged: the {HOOK} is already in {path} (nothing added to {where.settings})"], notes
    if hook is not None:
        changed = hook.get("command") != command
        hook["command"] = command
    else:
        groups.append({"hooks": [{"type": "command", "command": command, "timeout": 5}]})
        changed = True
    edits, notes = [_Edit(where.settings, HOOK, data, original, changed)], []
    for path, found in elsewhere:
        if scope == "project" and path == where.other_settings[0]:  # the personal file: this install replaces it
            edits.append(_removal(path, where.settings))
        elif scope == "project":  # the user's settings: every project's hook
            notes.append(f"note: {path} also runs the hook, for all your projects; it stays quiet in this one, "
                         "whose own settings run it" if defers_to_project(found) else
                         f"note: {path} also runs the hook, from an older install that does not leave a project "
                         "to its own hook; run `iflow-memory install-claude --scope user` again, or sessions here "
                         "get the memory twice")
        else:  # the user scope: this project's own files
            notes.append(f"note: {path} already runs the hook for this project; the user-scope hook stays quiet "
                         "there, so its sessions get the memory once")
    return edits, [], notes


def _removal(path: str, replacement: str) -> _Edit:
    """Taking the hook out of a personal settings file, because `replacement` runs it for the project now."""
    data, original = load_object(path)
    remove_our_hook(session_start_groups(data, path))
    return _Edit(path, f"{HOOK} removed: {replacement} runs it now", data, original, True)


def _server_edit(where: Targets, argv: list[str]) -> _Edit:
    """The MCP server change: command and args refreshed, any other key of an existing entry kept."""
    data, original = load_object(where.mcp_file, CLAUDE_JSON_LIMIT)
    servers = child_object(data, [*where.mcp_keys, "mcpServers"], where.mcp_file)
    current = servers.get(SERVER_NAME)
    wanted = {**(current if isinstance(current, dict) else {}), "command": argv[0], "args": [*argv[1:], "serve"]}
    servers[SERVER_NAME] = wanted
    what = SERVER + (f" for {where.mcp_keys[1]}" if where.mcp_keys else "")
    return _Edit(where.mcp_file, what, data, original, wanted != current)


def _notes(project: str, scope: str, where: Targets, written: bool) -> list[str]:
    """What the user should know about the files just written: PATH, git, a stale shared entry."""
    notes = []
    if scope == "project" and shutil.which("iflow-memory") is None:
        notes.append("note: `iflow-memory` is not on PATH here; Claude Code runs it from PATH for everyone who "
                     "opens this project (install it with pipx or `uv tool install`)")
    if scope == "local" and written and _git_tracks(project, where.settings):
        notes.append(f"note: git does not ignore {where.settings}; add `.claude/settings.local.json` to "
                     ".gitignore (it names paths on this machine)")
    shared = server_in_file(os.path.join(project, ".mcp.json"))
    if scope != "project" and shared and names_a_machine_path(shared.get("command", "")):
        notes.append(f"note: {os.path.join(project, '.mcp.json')} (shared) names a path on this machine for "
                     f"{SERVER_NAME}; `iflow-memory install-claude --scope project` makes it portable")
    return notes


def _git_tracks(project: str, path: str) -> bool:
    """Whether `path` is in a git work tree that does not ignore it (False when git cannot tell)."""
    try:
        result = subprocess.run(["git", "-C", project, "check-ignore", "-q", path], capture_output=True,
                                timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return result.returncode == 1  # 0 ignored, 128 not a work tree


def install(project: str, scope: str = "local") -> int:
    """Install the hook and the MCP server for `project` in `scope`; exit 1 (nothing written) on a missing
    project, a file that is not valid JSON of the right shape, or a file that is a symbolic link."""
    if not os.path.isdir(project):
        return fail(f"project directory {project} does not exist (nothing was written)")
    where, argv, missing_mcp = targets(project, scope), scope_argv(scope), mcp_problem()
    try:  # both files are read and checked (a link is refused) before either is written
        flags = [DEFER_FLAG] if scope == "user" else []
        hooks, lines, notes = _hook_edits(where, shlex.join([*argv, *HOOK_ARGS, *flags]), scope)
        server = None if missing_mcp else _server_edit(where, argv)
    except (ValueError, OSError) as exc:
        return fail(f"{exc}; nothing was written")
    try:
        for line in lines:
            print(line)
        for hook in hooks:
            print(hook.apply())
        print(server.apply() if server else f"skipped {SERVER}: {missing_mcp} (`iflow-memory serve` would exit "
              f"at start); install it with `{MCP_HINT}`, then run install-claude again")
    except OSError as exc:
        return fail(f"{exc}; that file was left unchanged")
    for note in notes + _notes(project, scope, where, bool(hooks and hooks[0].changed)):
        print(note)
    return 0


def install_command(args: argparse.Namespace) -> int:
    """The `install-claude` handler."""
    return install(os.path.abspath(os.path.expanduser(args.project)), args.scope)


def add_command(commands, fmt) -> None:
    """Register `install-claude` on the CLI's sub-parsers."""
    parser = commands.add_parser(
        "install-claude", help="add the SessionStart hook and the MCP server to Claude Code", formatter_class=fmt,
        description="Add the iflow-memory SessionStart hook and MCP server to Claude Code's settings, keeping\n"
                    "every other entry; a second run changes nothing. A file it changes is first copied to the\n"
                    "user's cache directory (~/.cache/iflow-memory/install-claude-backups on Linux), never into\n"
                    "the project. The MCP server is registered only when the mcp extra is installed\n"
                    f"({MCP_HINT}).\n\n"
                    "scopes (where the entries go):\n"
                    "  local    .claude/settings.local.json and ~/.claude.json for this project: absolute "
                    "paths, only you\n"
                    "  project  .claude/settings.json and .mcp.json, committed: `iflow-memory` from PATH, the "
                    "whole team\n"
                    "  user     ~/.claude/settings.json and ~/.claude.json: absolute paths, all your projects",
        epilog="examples:\n  iflow-memory install-claude --project-root ~/src/app\n"
               "  iflow-memory install-claude --project-root ~/src/app --scope project\n\n"
               "exit status: 0 ok (also when the MCP server was skipped for want of the mcp extra), 1 the "
               "project does not exist, or a file is not valid JSON or is a symbolic link (nothing is written)")
    parser.add_argument("--project-root", dest="project", default=os.getcwd(), metavar="PROJECT_ROOT",
                        help="project directory (default: current)")
    # --project: the name this flag had before it matched every other command's; still accepted.
    parser.add_argument("--project", dest="project", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    parser.add_argument("--scope", choices=SCOPES, default="local",
                        help="where to write: local (default), project or user; see above")
    parser.set_defaults(handler=install_command)
