"""Handlers the warm-process tests inject (in-thread servers take them directly; a server process is pointed at
one by IFLOW_MEMORY_TEST_WARM_HANDLER)."""

from __future__ import annotations

import os


def make_echo(store_dir: str):
    """A handler answering with the request, the store it serves and its process id."""
    def handle(request: dict) -> dict:
        return {"echo": request, "store": store_dir, "pid": os.getpid()}

    return handle


def make_broken(store_dir: str):
    """A handler factory that fails, as a missing model would."""
    raise RuntimeError(f"no model for {store_dir}")
