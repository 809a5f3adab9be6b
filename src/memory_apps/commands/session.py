"""`iflow-memory inject`, `hook` and `serve`: the commands Claude Code runs.

A session start builds a parser holding only its own command (see `cli.build_parser`), so registering these
imports nothing another command needs."""

from __future__ import annotations

import argparse

from memory_apps.store_paths import STORE_HELP


def _hook(args: argparse.Namespace) -> int:
    import gc

    gc.disable()  # a short-lived hook process
    if args.event != "session-start":
        from memory_apps.warm.hook_process import run_moment_hook

        return run_moment_hook(args.event, args.project_root, args.global_store, args.defer_to_project)
    from memory_apps.session.claude_hook import session_start
    from memory_apps.warm.hook_process import warm_enabled

    return session_start(args.project_root, args.global_store, args.limit, fast_exit=True,
                         defer_to_project=args.defer_to_project, after=_start_warm if warm_enabled() else None)


def _start_warm(store: str) -> None:
    """Start the prompt hooks' warm process as the session starts, so the first prompt finds the model loaded."""
    import os

    from memory_apps.warm.launcher import start_warm

    if os.path.isdir(store):
        start_warm(store)


def _serve(args: argparse.Namespace) -> int:
    from memory_apps.mcp_server import serve

    return serve(args.global_store, args.project_root)


def add_inject(commands, fmt) -> None:
    """Register `inject` (the injector as a sub-command)."""
    from memory_apps import injector  # here: the hook's parser, which needs none of it, registers only `hook`

    inject = commands.add_parser("inject", help="print the session-start memory block (what the hook runs)",
                                 description="Print the engineering-memory block for a session start.",
                                 epilog=injector.EPILOG, formatter_class=fmt)
    injector.add_arguments(inject)
    inject.set_defaults(handler=injector.inject, fast_exit=True)  # a process of its own: leave without teardown


HOOK_EVENTS = {
    "session-start": "SessionStart: the session's memory block (clear and compact get an empty one)",
    "user-prompt-submit": "UserPromptSubmit: at most 3 learnings relevant to the prompt, or nothing",
    "pre-tool-use": "PreToolUse (Read, Edit, MultiEdit, Write): at most 2 learnings citing the file, or nothing",
}


def add_hook(commands, fmt) -> None:
    """Register `hook session-start|user-prompt-submit|pre-tool-use`."""
    events = "\n".join(f"  {name:<19} {text}" for name, text in HOOK_EVENTS.items())
    hook = commands.add_parser(
        "hook", help="Claude Code hooks (session-start, user-prompt-submit, pre-tool-use)", formatter_class=fmt,
        description="Read a Claude Code hook event on stdin and answer with hook JSON. Always exits 0.",
        epilog=f"events:\n{events}\n\n"
               "examples:\n  echo '{\"source\": \"startup\", \"cwd\": \".\"}' | iflow-memory hook session-start\n"
               "  echo '{\"session_id\": \"s1\", \"cwd\": \".\", \"prompt\": \"why does the parser drop rows?\"}' "
               "| iflow-memory hook user-prompt-submit\n\n"
               "The prompt and file hooks print nothing when nothing is relevant or new to the session, answer\n"
               "within 1 s (IFLOW_MEMORY_HOOK_DEADLINE_S) and keep the model loaded in a private warm process\n"
               "(a Unix socket under the store; it ends itself after 15 idle minutes; IFLOW_MEMORY_WARM=off: none).\n\n"
               "exit status: always 0 (after an unreadable event or a bad flag, session-start still prints valid hook\n"
               "JSON and the other hooks print nothing)")
    hook.add_argument("event", choices=list(HOOK_EVENTS), help="the hook event")
    hook.add_argument("--project-root", default=None, help="project (default: $CLAUDE_PROJECT_DIR, the event's cwd)")
    hook.add_argument("--global-store", default=None, help=STORE_HELP)
    hook.add_argument("--limit", type=int, default=None,
                      help="session-start: entries to inject (default: memory_injection_limit)")
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
