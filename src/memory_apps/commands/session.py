"""`iflow-memory inject`, `hook` and `serve`: the commands Claude Code runs.

A session start builds a parser holding only its own command (see `cli.build_parser`), so registering these
imports nothing another command needs."""

from __future__ import annotations

import argparse

from memory_apps import injector
from memory_apps.store_paths import STORE_HELP


def _hook(args: argparse.Namespace) -> int:
    import gc

    from memory_apps.session.claude_hook import session_start

    gc.disable()  # a short-lived hook process
    return session_start(args.project_root, args.global_store, args.limit, fast_exit=True,
                         defer_to_project=args.defer_to_project)


def _serve(args: argparse.Namespace) -> int:
    from memory_apps.mcp_server import serve

    return serve(args.global_store, args.project_root)


def add_inject(commands, fmt) -> None:
    """Register `inject` (the injector as a sub-command)."""
    inject = commands.add_parser("inject", help="print the session-start memory block (what the hook runs)",
                                 description="Print the engineering-memory block for a session start.",
                                 epilog=injector.EPILOG, formatter_class=fmt)
    injector.add_arguments(inject)
    inject.set_defaults(handler=injector.inject, fast_exit=True)  # a process of its own: leave without teardown


def add_hook(commands, fmt) -> None:
    """Register `hook session-start`."""
    hook = commands.add_parser(
        "hook", help="Claude Code hooks (session-start)", formatter_class=fmt,
        description="Read a Claude Code hook event on stdin and answer with hook JSON. Always exits 0.",
        epilog="example:\n  echo '{\"source\": \"startup\", \"cwd\": \".\"}' | iflow-memory hook session-start\n\n"
               "clear and compact events get an empty additionalContext.\n\n"
               "exit status: always 0 (an unreadable event or a bad flag still gets valid hook JSON)")
    hook.add_argument("event", choices=["session-start"], help="the hook event")
    hook.add_argument("--project-root", default=None, help="project (default: $CLAUDE_PROJECT_DIR, the event's cwd)")
    hook.add_argument("--global-store", default=None, help=STORE_HELP)
    hook.add_argument("--limit", type=int, default=None, help="entries to inject (default: memory_injection_limit)")
    hook.add_argument("--defer-to-project", action="store_true",
                      help="inject nothing in a project whose own .claude/settings(.local).json run this hook "
                           "(what `install-claude --scope user` writes: the memory comes once)")
    hook.set_defaults(handler=_hook)


def add_serve(commands, fmt) -> None:
    """Register `serve` (the MCP server on stdio)."""
    serve = commands.add_parser(
        "serve", help="run the MCP server on stdio (store_memory, search_memory, delete_memory)",
        description="Run the MCP server on stdio. Claude Code starts it from .mcp.json.", formatter_class=fmt,
        epilog="example .mcp.json entry:\n  {\"mcpServers\": {\"iflow-memory\": {\"command\": \"iflow-memory\", "
               "\"args\": [\"serve\"]}}}\n\nexit status: 0 client disconnected, 1 mcp not installed, 2 database error")
    serve.add_argument("--project-root", default=None, help="project recorded as source_project (default: current)")
    serve.add_argument("--global-store", default=None, help=STORE_HELP)
    serve.set_defaults(handler=_serve)
