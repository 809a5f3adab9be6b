"""`iflow-memory ui`: the local web viewer (ADR 27) for the store the other commands use."""

from __future__ import annotations

import argparse
import os

from memory_apps.formatting import database_failed, fail
from memory_apps.store_paths import STORE_HELP, global_store_dir, missing_for_reading
from memory_core.errors import StorageError

EPILOG = """Serves pages on 127.0.0.1 only and prints the address, with a token made for this launch, as the first
line; the same address works until the viewer stops. The browser that opens it keeps a cookie; any other client is
refused. Ctrl-C stops it.

examples:
  iflow-memory ui
  iflow-memory ui --project-root ~/src/app --port 8765 --no-browser
  iflow-memory ui --read-only            # browse only: every change is refused, no forms shown

exit status: 0 stopped with Ctrl-C; 1 invalid input, no store, port taken or the ui extra missing;
2 database error"""


def ui_command(args: argparse.Namespace) -> int:
    """Open the store and serve the viewer until Ctrl-C."""
    from memory_apps.web.server import INSTALL_HINT, missing_extra

    if missing_extra() is not None:
        return fail(INSTALL_HINT)
    if not 0 <= args.port <= 65535:
        return fail(f"invalid --port {args.port}: 0 (a free port) to 65535")
    # The viewer stores nothing new at start: a missing store is a mistyped path, never one to create.
    problem = missing_for_reading(global_store_dir(args.global_store), args.project_root)
    if problem:
        return fail(problem)
    from memory_apps.service import MemoryService
    from memory_apps.web.server import bind, serve

    try:
        sock = bind(args.port)
    except OSError as exc:
        return fail(f"cannot listen on 127.0.0.1:{args.port}: {(exc.strerror or str(exc)).lower()}")
    try:
        service = MemoryService(args.global_store, args.project_root, tool="ui")
        service.container  # open now: a broken store fails here, before a URL is printed
        try:
            return serve(service, sock, read_only=args.read_only, open_browser=not args.no_browser)
        finally:
            service.close()
    except StorageError as exc:
        sock.close()
        return database_failed(exc)


def add_command(commands, fmt) -> None:
    """Register `ui` on the CLI's sub-parsers."""
    parser = commands.add_parser("ui", help="browse and tend the memory in a local web page",
                                 description="Serve a local web viewer for the memory store.", epilog=EPILOG,
                                 formatter_class=fmt)
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default 0: a free one)")
    parser.add_argument("--no-browser", action="store_true", help="print the URL only; do not open a browser")
    parser.add_argument("--read-only", action="store_true", help="refuse every change and show no forms")
    parser.add_argument("--project-root", default=os.getcwd(), help="project directory (default: current)")
    parser.add_argument("--global-store", default=None, help=STORE_HELP)
    parser.set_defaults(handler=ui_command)
