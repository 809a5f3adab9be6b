"""`iflow-memory`: the user CLI around the same container as the hook and the writer."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Optional, Sequence

from memory_apps import injector, writer
from memory_apps.commands_embedding import add_commands
from memory_apps.commands_entries import add_commands as add_entry_commands
from memory_apps.commands_maintain import add_command as add_maintain_command

DESCRIPTION = """Semantic long-term memory for coding agents.

commands:
  inject   print the memory block for a session start (what the hook runs)
  write    store one learning from JSON (what the retro skill runs)
  import   import knowledge-bank markdown into the database (idempotent)
  embed    embed every entry that has no vector yet (resumable)
  search   search memories by meaning and keywords
  list / show / delete / stats / export   look after stored memories
  doctor   check provider, pinned space, pending vectors, FTS5, numpy and background work
  maintain finish background work (first import, vectors, vector cache)
  serve    run the MCP server (stdio)
  hook     answer a Claude Code SessionStart hook
  install-claude   wire the hook and the MCP server into a project"""

EPILOG = """examples:
  iflow-memory import --project-root ~/src/app
  iflow-memory inject --project-root ~/src/app --limit 20
  iflow-memory write --entry-file learning.json

exit status: 0 ok; 1 invalid input or not found; 2 database error (inject and hook always exit 0)."""


def _import(args: argparse.Namespace) -> int:
    """Import markdown entries and print what changed."""
    from memory_apps.config import load_config
    from memory_apps.container import build_container, default_global_store, open_store_recovering
    from memory_apps.embedding_jobs import embed_after_write
    from memory_core.errors import StorageError
    from memory_core.inert import one_line

    global_store = os.path.expanduser(args.global_store) if args.global_store else default_global_store()
    try:
        container = build_container(load_config(args.project_root), global_store, full_check=True)
        open_store_recovering(container, args.project_root, global_store, auto_import=False)
        report = container.importer().run(args.project_root, global_store)
        if report.new or report.updated:
            embed_after_write(container)
    except StorageError as exc:
        print(f"iflow-memory: database error: {exc}", file=sys.stderr)
        return 2
    for problem in report.problems:
        print(f"iflow-memory: {one_line(problem)}", file=sys.stderr)
    print(
        f"Imported into {os.path.join(global_store, 'memory.db')}: {report.new} new, {report.updated} updated, "
        f"{report.unchanged} unchanged, {report.skipped} skipped ({report.duplicates} duplicates merged"
        + (f", {report.deleted} deleted earlier and left out" if report.deleted else "") + ")"
    )
    return 0


class CliParser(argparse.ArgumentParser):
    """Usage errors exit 1 (invalid input); 2 stays reserved for database errors."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The `iflow-memory` parser with one sub-parser per command."""
    parser = CliParser(
        prog="iflow-memory", description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    fmt = argparse.RawDescriptionHelpFormatter

    inject = commands.add_parser("inject", help="print the session-start memory block",
                                 description="Print the engineering-memory block for a session start.",
                                 epilog=injector.EPILOG, formatter_class=fmt)
    injector.add_arguments(inject)
    inject.set_defaults(handler=injector.inject, fast_exit=True)  # a process of its own: leave without teardown

    write = commands.add_parser("write", help="store one learning from JSON",
                                description="Store one learning in the memory database.",
                                epilog=writer.EPILOG, formatter_class=fmt)
    writer.add_arguments(write)
    write.set_defaults(handler=writer.write)

    imp = commands.add_parser("import", help="import knowledge-bank markdown (idempotent)",
                              description="Import docs/knowledge-bank/*.md of the project and the global "
                                          "store's *.md into memory.db. Re-importing changes nothing.",
                              epilog="example:\n  iflow-memory import --project-root . --global-store ~/.claude/iflow/memory",
                              formatter_class=fmt)
    imp.add_argument("--project-root", default=os.getcwd(), help="project directory (default: current)")
    imp.add_argument("--global-store", default=None, help="global store directory (default: ~/.claude/iflow/memory)")
    imp.set_defaults(handler=_import)
    add_commands(commands, fmt)
    add_maintain_command(commands, fmt)
    add_entry_commands(commands, fmt)
    _add_integration_commands(commands, fmt)
    return parser


def _serve(args: argparse.Namespace) -> int:
    from memory_apps.mcp_server import serve

    return serve(args.global_store, args.project_root)


def _hook(args: argparse.Namespace) -> int:
    from memory_apps.claude_hook import session_start

    import gc

    gc.disable()  # a short-lived hook process
    return session_start(args.project_root, args.global_store, args.limit, fast_exit=True)


def _install(args: argparse.Namespace) -> int:
    from memory_apps.install_claude import install

    return install(os.path.abspath(args.project))


def _add_integration_commands(commands, fmt) -> None:
    serve = commands.add_parser(
        "serve", help="run the MCP server on stdio (store_memory, search_memory, delete_memory)",
        description="Run the MCP server on stdio. Claude Code starts it from .mcp.json.", formatter_class=fmt,
        epilog="example .mcp.json entry:\n  {\"mcpServers\": {\"iflow-memory\": {\"command\": \"iflow-memory\", "
               "\"args\": [\"serve\"]}}}\n\nexit status: 0 client disconnected, 1 mcp not installed, 2 database error")
    serve.add_argument("--project-root", default=None, help="project recorded as source_project (default: current)")
    serve.add_argument("--global-store", default=None, help="global store directory (default: ~/.claude/iflow/memory)")
    serve.set_defaults(handler=_serve)

    hook = commands.add_parser(
        "hook", help="Claude Code hooks (session-start)", formatter_class=fmt,
        description="Read a Claude Code hook event on stdin and answer with hook JSON. Always exits 0.",
        epilog="example:\n  echo '{\"source\": \"startup\", \"cwd\": \".\"}' | iflow-memory hook session-start\n\n"
               "clear and compact events get an empty additionalContext.")
    hook.add_argument("event", choices=["session-start"], help="the hook event")
    hook.add_argument("--project-root", default=None, help="project (default: $CLAUDE_PROJECT_DIR, the event's cwd)")
    hook.add_argument("--global-store", default=None, help="global store directory (default: ~/.claude/iflow/memory)")
    hook.add_argument("--limit", type=int, default=None, help="entries to inject (default: memory_injection_limit)")
    hook.set_defaults(handler=_hook)

    install = commands.add_parser(
        "install-claude", help="write the SessionStart hook and the MCP server entry for Claude Code",
        description="Add the iflow-memory SessionStart hook to <project>/.claude/settings.json and the MCP server "
                    "to <project>/.mcp.json. Keeps every other entry, backs up files it changes, and does "
                    "nothing the second time.", formatter_class=fmt,
        epilog="example:\n  iflow-memory install-claude --project ~/src/app\n\nexit status: 0 ok, 1 the project does "
               "not exist, or a file is not valid JSON or is a symbolic link (nothing is written through one)")
    install.add_argument("--project", default=os.getcwd(), help="project directory (default: current)")
    install.set_defaults(handler=_install)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the `iflow-memory` console script."""
    parser = build_parser()
    arguments = list(sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(arguments)
    except SystemExit as exc:
        if arguments[:1] == ["hook"]:
            from memory_apps.claude_hook import hook_output

            print(hook_output(""))  # Claude Code still gets valid hook JSON
            return 0
        if arguments[:1] == ["inject"]:
            return 0  # the hook path never fails, even on a bad flag (the error is on stderr)
        return int(exc.code or 0)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 1
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
