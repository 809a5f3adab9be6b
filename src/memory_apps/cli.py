"""`iflow-memory`: the user CLI around the same container as the hook and the writer."""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Optional, Sequence

from memory_apps.commands.session import add_hook, add_inject, add_serve

EXIT_CLOSED_PIPE = 128 + 13  # what a shell reports for git when its reader left: 128 + SIGPIPE
# src/memory_apps/cli.py -> the checkout's pyproject.toml, for a source tree run without installing it
SOURCE_PYPROJECT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "pyproject.toml")

EPILOG = """examples:
  iflow-memory import --project-root ~/src/app
  iflow-memory inject --project-root ~/src/app --limit 20
  iflow-memory write --entry-file learning.json
  iflow-memory list --json
  iflow-memory ui

exit status: 0 ok; 1 invalid input or not found; 2 database error; 141, quietly, as git does, when the program
reading the output stops early (`iflow-memory list | head -1`). inject and hook always exit 0."""


def package_version() -> str:
    """The installed package's version; from a source tree that is not installed, its pyproject.toml's."""
    import re
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("iflow-memory")
    except PackageNotFoundError:
        pass
    try:
        with open(SOURCE_PYPROJECT, encoding="utf-8") as handle:
            found = re.search(r'^version\s*=\s*"([^"]+)"', handle.read(), re.M)
    except OSError:
        found = None
    return f"{found[1]} (source tree, not installed)" if found else "unknown (not installed)"


class _VersionAction(argparse.Action):
    """`--version`, looked up only when asked: the hook's path never imports importlib.metadata."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"iflow-memory {package_version()}")
        parser.exit(0)


class CliParser(argparse.ArgumentParser):
    """Usage errors exit 1 (invalid input); 2 stays reserved for database errors."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: error: {message}{did_you_mean(message)}\n")


_INVALID_CHOICE = re.compile(r"invalid choice: '(?P<given>[^']*)' \(choose from (?P<choices>.*)\)$")


def did_you_mean(message: str) -> str:
    """`; did you mean 'search'?` for argparse's invalid-choice message when one choice is close, else ""."""
    import difflib

    found = _INVALID_CHOICE.search(message)
    if not found:
        return ""
    choices = [c.strip().strip("'") for c in found["choices"].split(",")]
    close = difflib.get_close_matches(found["given"], choices, n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


SESSION_COMMANDS = {"inject": add_inject, "hook": add_hook}


def build_parser(only: Optional[str] = None) -> argparse.ArgumentParser:
    """The `iflow-memory` parser with one sub-parser per command; with `only` naming a session-start command
    (inject, hook), that command alone, so a session start imports nothing the other commands need."""
    parser = CliParser(
        prog="iflow-memory", description="Semantic long-term memory for coding agents.", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_VersionAction, help="print the version and exit")
    commands = parser.add_subparsers(title="commands", dest="command", metavar="COMMAND")
    fmt = argparse.RawDescriptionHelpFormatter
    if only in SESSION_COMMANDS:
        SESSION_COMMANDS[only](commands, fmt)
        return parser
    # The other commands' modules (writer, doctor, pydantic models...) load only here: a session start's clock runs
    # from its process start, and on a busy laptop these imports cost it a few hundred milliseconds.
    from memory_apps import writer
    from memory_apps.claude import install as install_claude
    from memory_apps.commands.trust import add_command as add_trust_command
    from memory_apps.commands.embedding import add_commands
    from memory_apps.commands.entries import add_commands as add_entry_commands
    from memory_apps.commands.importing import add_command as add_import_command
    from memory_apps.commands.lifecycle import add_commands as add_lifecycle_commands
    from memory_apps.commands.maintain import add_command as add_maintain_command
    from memory_apps.commands.migrate import add_command as add_migrate_command
    from memory_apps.commands.ui import add_command as add_ui_command

    add_inject(commands, fmt)
    write = commands.add_parser("write", help="store one learning from JSON (what the retro skill runs)",
                                description="Store one learning in the memory database.",
                                epilog=writer.EPILOG, formatter_class=fmt)
    writer.add_arguments(write)
    write.set_defaults(handler=writer.write)
    add_import_command(commands, fmt)
    add_commands(commands, fmt)
    add_maintain_command(commands, fmt)
    add_entry_commands(commands, fmt)
    add_lifecycle_commands(commands, fmt)
    add_trust_command(commands, fmt)
    add_migrate_command(commands, fmt)
    add_serve(commands, fmt)
    add_hook(commands, fmt)
    install_claude.add_command(commands, fmt)
    add_ui_command(commands, fmt)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the `iflow-memory` console script."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    try:
        status = _run(arguments)
        sys.stdout.flush()  # a reader that left early shows here, not in the interpreter's final flush
    except BrokenPipeError:
        _silence_stdout()
        return 0 if arguments[:1] in (["hook"], ["inject"]) else EXIT_CLOSED_PIPE  # a session start never fails
    return status


def _run(arguments: list[str]) -> int:
    parser = build_parser(arguments[0] if arguments else None)
    try:
        args = parser.parse_args(arguments)
    except SystemExit as exc:
        failed = exc.code not in (0, None)  # --help and --version print only themselves
        if arguments[:1] == ["hook"]:
            if failed and "session-start" in arguments:
                from memory_apps.session.claude_hook import hook_output

                print(hook_output(""))  # Claude Code still gets valid hook JSON (the other hooks: nothing)
            return 0
        if arguments[:1] == ["inject"]:
            return 0  # the hook path never fails, even on a bad flag (the error is on stderr)
        return int(exc.code or 0)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 1
    return args.handler(args)


def _silence_stdout() -> None:
    """Point stdout at the null device: what is still buffered then finds no closed pipe at exit, so Python
    prints no `Exception ignored` message."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):  # no real stdout (an in-process caller): nothing to flush
        pass


if __name__ == "__main__":
    sys.exit(main())
