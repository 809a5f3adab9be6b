"""Session-start injector: `python -m memory_apps.injector --project-root P --limit N --global-store G`.

Prints only the memory block on stdout, logs problems on stderr, and always exits 0.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from typing import Optional, Sequence

EPILOG = """examples:
  python -m memory_apps.injector --project-root . --limit 20 --global-store ~/.claude/iflow/memory
  iflow-memory inject --limit -1          # no limit

settings come from <project>/.claude/iflow-dev.local.md (memory_injection_enabled,
memory_injection_limit, memory_semantic_enabled, weights); --limit overrides the limit.
exit status: always 0, so a session-start hook never fails because of memory."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags shared by `python -m memory_apps.injector` and `iflow-memory inject`."""
    parser.add_argument("--project-root", default=os.getcwd(), help="project directory (default: current)")
    parser.add_argument("--limit", type=int, default=None,
                        help="entries to inject; 0 = none, -1 = no limit (default: memory_injection_limit, 20)")
    parser.add_argument("--global-store", default=None,
                        help="global store directory holding memory.db (default: ~/.claude/iflow/memory)")


def build_parser(prog: Optional[str] = None) -> argparse.ArgumentParser:
    """The injector's argument parser."""
    parser = argparse.ArgumentParser(
        prog=prog, description="Print the engineering-memory block for a session start.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser)
    return parser


def inject(args: argparse.Namespace) -> int:
    """Run the injection for parsed arguments; never raises, always returns 0."""
    try:
        from memory_apps.config import load_config
        from memory_apps.container_config import default_global_store
        from memory_apps.hook_wiring import HookWiring
        from memory_apps.injection import InjectRequest, run_injection

        settings = load_config(args.project_root)
        global_store = os.path.expanduser(args.global_store) if args.global_store else default_global_store()
        limit = args.limit if args.limit is not None else settings.injection_limit
        request = InjectRequest(args.project_root, global_store, limit)
        block = run_injection(request, settings, lambda: HookWiring(settings, global_store))
    except BaseException as exc:  # noqa: BLE001 - the hook path must never crash
        if isinstance(exc, KeyboardInterrupt):
            return 0
        print(f"iflow-memory: injection failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 0
    try:
        sys.stdout.write(block)
        sys.stdout.flush()
    except OSError:
        pass
    if threading.active_count() > 1 or args_fast_exit(args):
        # Nothing is left to write: skip interpreter teardown (50-100 ms at 10k entries), and never wait for
        # an abandoned worker (time budget). SQLite has committed; its WAL is checkpointed by the next writer.
        sys.stderr.flush()
        os._exit(0)
    return 0


def args_fast_exit(args: argparse.Namespace) -> bool:
    """True for the standalone hook process; in-process callers (tests, the CLI's own main) keep running."""
    return bool(getattr(args, "fast_exit", False))


def main(argv: Optional[Sequence[str]] = None, fast_exit: bool = False) -> int:
    """Entry point of `python -m memory_apps.injector`."""
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
