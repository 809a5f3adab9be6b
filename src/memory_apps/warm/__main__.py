"""`python -m memory_apps.warm --global-store <store>`: the warm server process (started by `start_warm`).

It never writes to the terminal it came from: stdin and stdout go to /dev/null and stderr to the private
`<store>/warm/server.log` once the arguments are read.
"""

from __future__ import annotations

import argparse
import importlib
import os
import stat
import sys
import traceback
from typing import Callable, Optional

from memory_adapters.shared_work.file_leases import FileLeases
from memory_apps.warm.private_dirs import open_log
from memory_apps.warm.paths import socket_path
from memory_apps.warm.server import LEASE_TASK, WarmServer

# For tests only: `module:function`, called with the store, builds the handler instead of make_handler.
HANDLER_VARIABLE = "IFLOW_MEMORY_TEST_WARM_HANDLER"


def main(argv: Optional[list] = None) -> int:
    """Serve the store until the server ends itself; 0 also when another server already serves it."""
    parser = argparse.ArgumentParser(
        prog="python -m memory_apps.warm",
        description="Keep the embedding model loaded for one store and answer its hooks on a private Unix "
                    "socket. Started on demand by the hooks; ends itself after 15 idle minutes.")
    parser.add_argument("--global-store", required=True, help="the global store directory to serve")
    parser.add_argument("--idle-seconds", type=float, default=900.0,
                        help="end after this many seconds without a request (default: 900)")
    args = parser.parse_args(argv)
    store = os.path.abspath(args.global_store)
    _detach_stdio(store)
    leases = FileLeases(store)
    # The lease before the model: of two servers started at once, only one pays for loading it.
    if not os.path.isdir(store) or not leases.claim(LEASE_TASK):
        return 0
    if _blocked(socket_path(store)):  # before the model: the server could not listen there anyway
        print(f"{socket_path(store)} is not a socket; left alone, no warm process", file=sys.stderr)
        return 1
    try:
        handler = _build_handler(store)
    except Exception:
        traceback.print_exc()  # into server.log
        return 1
    WarmServer(store, handler, idle_seconds=args.idle_seconds, leases=leases).serve()
    return 0


def _blocked(path: str) -> bool:
    """Whether something other than a socket (a file, a link) sits where the socket goes."""
    try:
        return not stat.S_ISSOCK(os.lstat(path).st_mode)
    except OSError:
        return False


def _build_handler(store: str) -> Callable[[dict], dict]:
    spec = os.environ.get(HANDLER_VARIABLE)
    if spec:
        module_name, _, function = spec.partition(":")
        return getattr(importlib.import_module(module_name), function)(store)
    from memory_apps.warm.handler import make_handler

    return make_handler(store)


def _detach_stdio(store: str) -> None:
    """stdin/stdout to /dev/null, stderr to the private log (or /dev/null), at the descriptor level so that
    native libraries cannot reach the terminal either."""
    devnull = os.open(os.devnull, os.O_RDWR)
    log = open_log(store) if os.path.isdir(store) else None
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.dup2(log if log is not None else devnull, 2)
    for fd in {devnull, log} - {None, 0, 1, 2}:
        os.close(fd)


if __name__ == "__main__":
    sys.exit(main())
