"""Session-start injector: `python -m memory_apps.injector --project-root P --limit N --global-store G`.

Prints only the memory block on stdout, logs problems on stderr, and always exits 0.
"""

from __future__ import annotations

import os
import sys
from types import SimpleNamespace
from typing import TYPE_CHECKING, Optional, Sequence

from memory_apps.store_paths import DEFAULT_GLOBAL_STORE
from memory_apps.wiring.values import DB_FILENAME

if TYPE_CHECKING:
    import argparse

EPILOG = """examples:
  python -m memory_apps.injector --project-root . --limit 20 --global-store ~/.claude/iflow/memory
  iflow-memory inject --limit -1          # no limit

settings come from <project>/.claude/iflow-dev.local.md (memory_injection_enabled,
memory_injection_limit, memory_semantic_enabled, memory_injection_style, weights); --limit
overrides the limit. memory_injection_style: index prints the 5 best entries in full and one
line (id, name) for each other; `iflow-memory show ID` prints one in full.
exit status: always 0, so a session-start hook never fails because of memory."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags shared by `python -m memory_apps.injector` and `iflow-memory inject`."""
    parser.add_argument("--project-root", default=None, help="project directory (default: current)")
    parser.add_argument("--limit", type=int, default=None,
                        help="entries to inject; 0 = none, -1 = no limit (default: memory_injection_limit, 20)")
    parser.add_argument("--global-store", default=None,
                        help=f"global store directory holding {DB_FILENAME} (default: {DEFAULT_GLOBAL_STORE})")


PROG = "python -m memory_apps.injector"  # argparse would say `injector.py`, which nobody can run


def build_parser(prog: Optional[str] = PROG) -> argparse.ArgumentParser:
    """The injector's argument parser."""
    import argparse

    parser = argparse.ArgumentParser(
        prog=prog, description="Print the engineering-memory block for a session start.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser)
    return parser


def inject(args: argparse.Namespace) -> int:
    """Run the injection for parsed arguments; prints only the block, never raises, always returns 0."""
    from memory_apps.session.injection import print_block
    from memory_apps.session.shell import answer_session, current_directory, session_deadline

    fast_exit = args_fast_exit(args)
    answer_session(args.project_root or current_directory(), args.global_store, args.limit,
                   session_deadline(process_start=fast_exit), print_block, watchdog=fast_exit)
    if fast_exit:
        # Nothing is left to write: skip interpreter teardown (50-100 ms at 10k entries), and never wait for
        # the embedding worker. SQLite has committed; its WAL is checkpointed by the next writer.
        sys.stderr.flush()
        os._exit(0)
    return 0


def args_fast_exit(args: argparse.Namespace) -> bool:
    """True for a process of its own (`python -m memory_apps.injector`, `iflow-memory inject`): it leaves with
    os._exit once the block is out. In-process callers of `main()` keep running."""
    return bool(getattr(args, "fast_exit", False))


FLAGS = {"--project-root": "project_root", "--limit": "limit", "--global-store": "global_store"}


def plain_arguments(argv: Sequence[str]) -> Optional[SimpleNamespace]:
    """The arguments a hook line passes (each flag of FLAGS at most once, as `--flag value` or `--flag=value`),
    read as argparse reads them, without importing it (argparse, its help formatter, gettext and shutil cost
    about 5 ms of a session start); None for anything else (help, abbreviations, a value that looks like a flag,
    a bad number, a repeat), which argparse parses and explains."""
    values: dict[str, object] = {"project_root": None, "limit": None, "global_store": None}
    seen: set[str] = set()
    position = 0
    while position < len(argv):
        flag, equals, value = argv[position].partition("=")
        if flag not in FLAGS or flag in seen:
            return None
        if not equals:
            position += 1
            if position == len(argv) or argv[position].startswith("-"):
                return None
            value = argv[position]
        seen.add(flag)
        values[FLAGS[flag]] = value
        position += 1
    if values["limit"] is not None:
        try:
            values["limit"] = int(values["limit"])  # what argparse's type=int calls
        except ValueError:
            return None
    return SimpleNamespace(**values)


def main(argv: Optional[Sequence[str]] = None, fast_exit: bool = False) -> int:
    """Entry point of `python -m memory_apps.injector`."""
    args = plain_arguments(sys.argv[1:] if argv is None else list(argv))
    if args is None:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit:  # bad flags are reported on stderr; the hook still exits 0
            return 0
    args.fast_exit = fast_exit
    return inject(args)


if __name__ == "__main__":
    import gc

    gc.disable()  # a short-lived process: collection pauses only cost time
    sys.exit(main(fast_exit=True))
