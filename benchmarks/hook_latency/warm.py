"""The warm processes of the benchmark's stores: start one, wait until it answers with the model loaded, find
the ones the hooks started, and stop them all (SIGTERM; none may outlive the run)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Callable, Optional

from benchmarks.common.processes import PY

IDLE_S = 600  # a server this run starts ends itself even if the run is killed before stopping it
GENEROUS_S = 120.0  # waits poll until their condition; only a broken server takes this long


def start(store: Path, env: dict) -> subprocess.Popen:
    """`python -m memory_apps.warm --global-store STORE` detached from the terminal, as the launcher starts it."""
    return subprocess.Popen([PY, "-P", "-m", "memory_apps.warm", "--global-store", str(store),
                             "--idle-seconds", str(IDLE_S)], env=env, cwd="/", stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def ask(store: Path, request: dict, env: dict, timeout: float = 30.0) -> Optional[dict]:
    """The store's warm server's reply, None when none answers. Asked with the hooks' environment `env`: the
    client's version stamp covers the code and the environment, and a server sent another one ends itself."""
    from unittest import mock

    from memory_apps.warm.client import ask_warm

    with mock.patch.dict(os.environ, env, clear=True):
        return ask_warm(str(store), request, timeout)


def answers(store: Path, env: dict) -> bool:
    """Whether a warm server answers for the store (an empty request gets an error reply: still an answer)."""
    return ask(store, {}, env, timeout=5.0) is not None


def wait_for(condition: Callable[[], object], what: str, seconds: float = GENEROUS_S) -> None:
    """Poll `condition` until it holds; RuntimeError after `seconds`."""
    give_up = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > give_up:
            raise RuntimeError(f"timed out after {seconds:.0f} s waiting for {what}")
        time.sleep(0.05)


def server_pids(store: Path) -> set[int]:
    """Every live warm server of this store: the lease holder, and (on Linux) any process serving it that has
    not taken the lease yet."""
    from memory_adapters.shared_work.file_leases import FileLeases
    from memory_apps.warm.server import LEASE_TASK

    pids = {h["pid"] for h in FileLeases(str(store)).holders() if h["task"] == LEASE_TASK}
    wanted = ["memory_apps.warm", "--global-store", str(store)]
    for entry in Path("/proc").iterdir() if Path("/proc/self").exists() else ():
        if entry.name.isdigit():
            try:
                args = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
            except OSError:
                continue
            if all(arg in args for arg in wanted) and not _ended(int(entry.name)):
                pids.add(int(entry.name))
    return pids


def strays(directory: Path) -> list[str]:
    """Processes (Linux: /proc) whose command line names `directory`: after stop_all, none may be left."""
    found = []
    for entry in Path("/proc").iterdir() if Path("/proc/self").exists() else ():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                line = (entry / "cmdline").read_bytes().decode(errors="replace").replace("\0", " ").strip()
            except OSError:
                continue
            if str(directory) in line and not _ended(int(entry.name)):
                found.append(f"{entry.name} {line}")
    return found


def stop_all(stores: list[Path], started: list[subprocess.Popen]) -> list[int]:
    """SIGTERM every warm server of `stores` and wait until each has ended; the pids still alive (none, or a bug)."""
    pids = set().union(*(server_pids(s) for s in stores)) | {p.pid for p in started if p.poll() is None}
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    for process in started:
        try:
            process.wait(GENEROUS_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    give_up = time.monotonic() + GENEROUS_S
    while any(not _ended(pid) for pid in pids) and time.monotonic() < give_up:
        time.sleep(0.05)
    return sorted(pid for pid in pids if not _ended(pid))


def kill(pid: int) -> None:
    """SIGKILL one server (the crash scenario) and wait until it is gone."""
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: _ended(pid), f"warm server {pid} to die")


def _ended(pid: int) -> bool:
    """Gone, or a zombie (a server the hooks spawned is not this process's child; a Popen one is reaped by
    stop_all)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False
