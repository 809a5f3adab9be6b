"""The hooks and the warm process together, as a user's machine runs them (issue 23): the first file hook answers
cold and starts the store's warm server; the server then gives the very answer a hook process gives; a server
killed with SIGKILL costs no answer, and the next hook starts its replacement. Every server a test started is
stopped by a fixture finalizer, also when the test fails."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from typing import Callable, Iterator
from unittest import mock

import pytest

from memory_adapters.shared_work.file_leases import FileLeases
from memory_apps.warm.client import ask_warm
from memory_apps.warm.launcher import STAMP_NAME
from memory_apps.warm.paths import socket_path, warm_dir
from memory_apps.warm.server import LEASE_TASK
from tests._helpers import PYTHON, TIMEOUT_S, app_env, run_in_process

pytestmark = pytest.mark.slow

GENEROUS_S = 120.0  # polls end when their condition holds; only a broken server takes this long
CITED = "src/ingest/csv_reader.py"
LEARNING = {"name": "Never split CSV rows by hand",
            "description": "Quoted fields hold commas and line breaks: read rows with the csv module.",
            "category": "anti-patterns", "references": [f"{CITED}:40"]}


def wait_for(condition: Callable[[], object], what: str) -> object:
    """Poll `condition` until it returns something true (and return it); fail after GENEROUS_S."""
    give_up = time.monotonic() + GENEROUS_S
    while not (value := condition()):
        if time.monotonic() > give_up:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)
    return value


def server_pids(store: Path) -> set[int]:
    """The store's warm servers: the process holding its lease."""
    return {h["pid"] for h in FileLeases(str(store)).holders() if h["task"] == LEASE_TASK}


def started_servers(store: Path) -> set[int]:
    """Every process serving the store, also one spawned but not yet holding the lease (Linux: /proc)."""
    found = server_pids(store)
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            args = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"memory_apps.warm" in args and str(store).encode() in args and not ended(int(entry.name)):
            found.add(int(entry.name))
    return found


def ended(pid: int) -> bool:
    """Gone, or a zombie (the hooks spawn servers detached: they are no children of this process)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


@pytest.fixture
def shop(tmp_path) -> Iterator[dict]:
    """A project, a store (short path: its socket fits AF_UNIX) holding one learning that cites CITED, and the
    hooks' environment with the warm process on and detached spawns allowed. The finalizer SIGTERMs every warm
    server of the store and waits until it has ended."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    store = Path(tempfile.mkdtemp(prefix="wh-", dir="/tmp"))
    wrote = run_in_process("memory_apps.cli", ["write", "--project-root", project, "--global-store", store,
                                               "--entry-json", json.dumps(LEARNING)], home)
    assert wrote.returncode == 0, wrote.stderr
    env = app_env(home, {"IFLOW_MEMORY_WARM": None, "IFLOW_MEMORY_BACKGROUND": "1",
                         "CLAUDE_PROJECT_DIR": str(project)})
    yield {"home": home, "project": project, "store": store, "env": env}
    pids = started_servers(store)
    for pid in pids:
        os.kill(pid, signal.SIGTERM)
    for pid in pids:
        wait_for(lambda: ended(pid), f"warm server {pid} to end")
    shutil.rmtree(store, ignore_errors=True)


def file_event(shop: dict) -> dict:
    """An Edit of CITED in a new session (the ledger never holds the answer back)."""
    return {"session_id": f"s-{uuid.uuid4()}", "transcript_path": "/dev/null", "cwd": str(shop["project"]),
            "hook_event_name": "PreToolUse", "tool_name": "Edit",
            "tool_input": {"file_path": str(shop["project"] / CITED)}}


def file_hook(shop: dict) -> str:
    """One `iflow-memory hook pre-tool-use` process: what it printed (hook JSON)."""
    done = subprocess.run([PYTHON, "-m", "memory_apps.cli", "hook", "pre-tool-use", "--global-store",
                           str(shop["store"])], input=json.dumps(file_event(shop)), capture_output=True, text=True,
                          env=shop["env"], cwd=str(shop["project"]), timeout=TIMEOUT_S)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def warm_answer(shop: dict):
    """The store's warm server's answer to a file hook request, None while no server answers. Asked in the hooks'
    environment: the request's version stamp covers it, and a server sent another stamp ends itself."""
    request = {"hook": "pre-tool-use", "event": file_event(shop), "project_root": str(shop["project"]),
               "defer_to_project": False, "deadline_at": time.time() + 60}
    with mock.patch.dict(os.environ, shop["env"], clear=True):
        reply = ask_warm(str(shop["store"]), request, timeout=60)
    return reply.get("output") if isinstance(reply, dict) else None


def test_the_first_hook_answers_cold_and_starts_the_server_that_answers_the_same(shop):
    assert not server_pids(shop["store"])

    cold = file_hook(shop)

    context = json.loads(cold)["hookSpecificOutput"]["additionalContext"]
    assert LEARNING["name"] in context and f"cites {CITED}:40 (same file)" in context
    warm = wait_for(lambda: warm_answer(shop), "the server the hook started to answer")
    assert warm == cold
    assert file_hook(shop) == cold  # a hook the server answers prints the same
    assert len(server_pids(shop["store"])) == 1


def test_a_killed_server_costs_no_answer_and_the_next_hook_starts_a_new_one(shop):
    expected = file_hook(shop)
    wait_for(lambda: warm_answer(shop), "the first server to answer")
    (first,) = server_pids(shop["store"])
    # The launcher spawns at most once in RESPAWN_AFTER_S; this crash comes sooner after the start than a real
    # one would, so the stamp of that start is made old.
    os.utime(os.path.join(warm_dir(str(shop["store"])), STAMP_NAME), (0, 0))

    os.kill(first, signal.SIGKILL)
    wait_for(lambda: ended(first), "the killed server to be gone")
    assert os.path.lexists(socket_path(str(shop["store"])))  # its stale socket stays behind

    assert file_hook(shop) == expected  # answered cold; starts the replacement
    replaced = wait_for(lambda: server_pids(shop["store"]) - {first}, "a new server")
    assert wait_for(lambda: warm_answer(shop), "the new server to answer") == expected
    assert server_pids(shop["store"]) == replaced
    assert file_hook(shop) == expected


def test_a_session_start_starts_the_server_so_the_first_prompt_finds_it(shop):
    assert not server_pids(shop["store"])
    start = subprocess.run([PYTHON, "-m", "memory_apps.cli", "hook", "session-start", "--global-store",
                            str(shop["store"])], input=json.dumps({"session_id": "s-start", "source": "startup",
                                                                    "cwd": str(shop["project"])}),
                           capture_output=True, text=True, env=shop["env"], cwd=str(shop["project"]),
                           timeout=TIMEOUT_S)
    assert start.returncode == 0, start.stderr
    assert json.loads(start.stdout)["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert wait_for(lambda: warm_answer(shop), "the server the session start started to answer")
    assert len(server_pids(shop["store"])) == 1


def test_the_server_journals_the_hooks_it_answers(shop):
    from memory_adapters.shared_work.file_injection_journal import FileInjectionJournal
    from memory_adapters.system_clock import SystemClock

    file_hook(shop)  # answered cold, in its own process: its record, and the server starts
    wait_for(lambda: warm_answer(shop), "the server the hook started to answer")  # only the server answers this
    records = FileInjectionJournal(str(shop["store"]), SystemClock()).recent()
    assert [r.hook for r in records] == ["file", "file"]
    assert len({r.session_id for r in records}) == 2
    assert all([m.name for m in r.shown] == [LEARNING["name"]] for r in records)
