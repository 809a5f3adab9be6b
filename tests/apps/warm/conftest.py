"""Fixtures for the warm process: a short private runtime directory, servers run in threads or as processes."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest

from memory_apps.warm import paths
from memory_apps.warm.client import ask_warm
from memory_apps.warm.server import WarmServer

PROJECT_ROOT = Path(__file__).resolve().parents[3]
GENEROUS_S = 60.0  # a bound no healthy run comes near: waits poll until the condition, never sleep a fixed time


def wait_for(condition: Callable[[], object], what: str) -> None:
    """Poll `condition` until it holds; fail after GENEROUS_S."""
    give_up = time.monotonic() + GENEROUS_S
    while not condition():
        if time.monotonic() > give_up:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.02)


@pytest.fixture(autouse=True)
def short_runtime_dirs(monkeypatch) -> Iterator[Path]:
    """XDG_RUNTIME_DIR and the /tmp fallback point at a short private directory of this test, so a long store
    falls back there (and never into the real /tmp)."""
    root = Path(tempfile.mkdtemp(prefix="iw-", dir="/tmp"))
    (root / "xdg").mkdir(mode=0o700)
    (root / "tmp").mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(root / "xdg"))
    monkeypatch.setattr(paths, "TMP_ROOT", str(root / "tmp"))
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def store() -> Iterator[Path]:
    """An existing global store with a path short enough for the preferred socket."""
    path = Path(tempfile.mkdtemp(prefix="st-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@contextlib.contextmanager
def serving(server: WarmServer) -> Iterator[list]:
    """Run `server` in a thread until the block ends; yields the list its end reason is appended to."""
    result: list = []
    thread = threading.Thread(target=lambda: result.append(server.serve()), daemon=True)
    thread.start()
    wait_for(lambda: server.listening.is_set() or result, "the server to listen")
    try:
        yield result
    finally:
        server.stop()
        thread.join(GENEROUS_S)


def echo(request: dict) -> dict:
    """The in-thread servers' default handler."""
    return {"echo": request}


def make_server(store_dir, handler=echo, **options) -> WarmServer:
    """A server that notices a stop quickly."""
    options.setdefault("poll_seconds", 0.05)
    return WarmServer(str(store_dir), handler, **options)


def process_env(handler: str = "make_echo") -> dict:
    """The environment for a server process running a handler of tests/apps/warm/handlers.py."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PROJECT_ROOT / "src"), str(PROJECT_ROOT)])
    env["IFLOW_MEMORY_TEST_WARM_HANDLER"] = f"tests.apps.warm.handlers:{handler}"
    return env


@pytest.fixture
def server_process(store):
    """Start `python -m memory_apps.warm` for the store (a test handler) and wait until it answers."""
    started: list[subprocess.Popen] = []

    def start(handler: str = "make_echo") -> subprocess.Popen:
        process = subprocess.Popen([sys.executable, "-m", "memory_apps.warm", "--global-store", str(store)],
                                   env=process_env(handler), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
        process.communicate(timeout=GENEROUS_S)


def answers(store_dir) -> bool:
    """True once the store's warm server replies as it should (an `error` reply, e.g. `version`, ends the server: a
    test relying on it would race its exit)."""
    reply = ask_warm(str(store_dir), {"ping": 1}, timeout=5.0)
    return reply is not None and "error" not in reply
