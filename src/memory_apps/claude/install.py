"""`iflow-memory install-claude`: the three hooks (SessionStart, UserPromptSubmit, PreToolUse; `--events` chooses)
and the MCP server, in the scopes Claude Code documents.

- local (default): the hooks in `<project>/.claude/settings.local.json` and the server in `~/.claude.json` under
  the project's path: this installation's absolute paths, for this user on this machine, never committed.
- project: the hooks in `.claude/settings.json` and the server in `.mcp.json`, files a team commits, so the
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
from typing import Optional

from memory_apps.claude.events import EVENTS, HookEvent, hooks_phrase, parse_events
from memory_apps.claude.hook_edits import FileEdit, plan_hooks
from memory_apps.claude.settings import (CLAUDE_JSON_LIMIT, DEFER_FLAG, SERVER_NAME, child_object, load_object,
                                       names_a_machine_path, server_in_file)
from memory_apps.formatting import fail
from memory_core.errors import install_hint

SCOPES = ("local", "project", "user")
MCP_HINT = install_hint("mcp")
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


def _server_edit(where: Targets, argv: list[str]) -> FileEdit:
    """The MCP server change: command and args refreshed, any other key of an existing entry kept."""
    data, original = load_object(where.mcp_file, CLAUDE_JSON_LIMIT)
    servers = child_object(data, [*where.mcp_keys, "mcpServers"], where.mcp_file)
    current = servers.get(SERVER_NAME)
    wanted = {**(current if isinstance(current, dict) else {}), "command": argv[0], "args": [*argv[1:], "serve"]}
    servers[SERVER_NAME] = wanted
    what = SERVER + (f" for {where.mcp_keys[1]}" if where.mcp_keys else "")
    return FileEdit(where.mcp_file, what, data, original, wanted != current)


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


def install(project: str, scope: str = "local", events: tuple[HookEvent, ...] = EVENTS) -> int:
    """Install the hooks for `events` and the MCP server for `project` in `scope`; exit 1 (nothing written) on a
    missing project, a file that is not valid JSON of the right shape, or a file that is a symbolic link."""
    if not os.path.isdir(project):
        return fail(f"project directory {project} does not exist (nothing was written)")
    where, argv, missing_mcp = targets(project, scope), scope_argv(scope), mcp_problem()
    flags = [DEFER_FLAG] if scope == "user" else []  # a user-scope hook leaves a project to its own (ADR 20)
    try:  # every file is read and checked (a link is refused) before any is written
        plan = plan_hooks(where.settings, where.other_settings, scope, events,
                          lambda event: shlex.join([*argv, "hook", event.command, *flags]))
        server = None if missing_mcp else _server_edit(where, argv)
    except (ValueError, OSError) as exc:
        return fail(f"{exc}; nothing was written")
    left = [event for event in EVENTS if event not in events]
    try:
        for line in plan.lines:
            print(line)
        for edit in plan.edits:
            print(edit.apply())
        if left:
            print(f"left as they are: the {hooks_phrase(left)} (not in --events)")
        print(server.apply() if server else f"skipped {SERVER}: {missing_mcp} (`iflow-memory serve` would exit "
              f"at start); install it with `{MCP_HINT}`, then run install-claude again")
    except OSError as exc:
        return fail(f"{exc}; that file was left unchanged")
    written = any(edit.path == where.settings and edit.changed for edit in plan.edits)
    for note in plan.notes + _notes(project, scope, where, written):
        print(note)
    return 0


def install_command(args: argparse.Namespace) -> int:
    """The `install-claude` handler."""
    return install(os.path.abspath(os.path.expanduser(args.project)), args.scope, args.events)


def _events_argument(text: str) -> tuple[HookEvent, ...]:
    """`--events`: a usage error names the unknown event and the choices."""
    try:
        return parse_events(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def _events_help() -> str:
    """One line per hook event: what it injects."""
    width = max(len(event.command) for event in EVENTS)
    return "\n".join(f"  {event.command:<{width}}  {event.name}"
                     + (f" (matcher {event.matcher})" if event.matcher else "") + f": {event.summary}"
                     for event in EVENTS)


def add_command(commands, fmt) -> None:
    """Register `install-claude` on the CLI's sub-parsers."""
    parser = commands.add_parser(
        "install-claude", help="add the memory hooks and the MCP server to Claude Code", formatter_class=fmt,
        description="Add iflow-memory's hooks and MCP server to Claude Code's settings, keeping every other\n"
                    "entry; a second run changes nothing, an earlier install's hooks are refreshed in place, and\n"
                    "a hook another settings file of the project already runs is not added again. A file it\n"
                    "changes is first copied to the user's cache directory (~/.cache/iflow-memory/\n"
                    "install-claude-backups on Linux), never into the project. The MCP server is registered only\n"
                    f"when the mcp extra is installed ({MCP_HINT}).\n\n"
                    "hooks (--events; each entry gets a timeout of a few seconds):\n" + _events_help() + "\n\n"
                    "scopes (where the entries go):\n"
                    "  local    .claude/settings.local.json and ~/.claude.json for this project: absolute "
                    "paths, only you\n"
                    "  project  .claude/settings.json and .mcp.json, committed: `iflow-memory` from PATH, the "
                    "whole team\n"
                    "  user     ~/.claude/settings.json and ~/.claude.json: absolute paths, all your projects; "
                    "the hooks\n"
                    "           stay quiet in a project whose own settings run them (--defer-to-project)",
        epilog="examples:\n  iflow-memory install-claude --project-root ~/src/app\n"
               "  iflow-memory install-claude --project-root ~/src/app --scope project\n"
               "  iflow-memory install-claude --events session-start,user-prompt-submit\n\n"
               "exit status: 0 ok (also when the MCP server was skipped for want of the mcp extra), 1 the "
               "project does not exist, a file is not valid JSON or is a symbolic link, or an --events name is "
               "unknown (nothing is written)")
    parser.add_argument("--project-root", dest="project", default=os.getcwd(), metavar="PROJECT_ROOT",
                        help="project directory (default: current)")
    # --project: the name this flag had before it matched every other command's; still accepted.
    parser.add_argument("--project", dest="project", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    parser.add_argument("--scope", choices=SCOPES, default="local",
                        help="where to write: local (default), project or user; see above")
    parser.add_argument("--events", type=_events_argument, default=EVENTS, metavar="EVENT[,EVENT...]",
                        help="the hooks to install or refresh, comma-separated (default: all three, see above); "
                             "the others are left as they are")
    parser.set_defaults(handler=install_command)
