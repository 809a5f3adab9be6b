"""The warm server as a real process: started by the launcher, replaced after a crash, stopped by SIGTERM,
silent on the terminal it came from."""

from __future__ import annotations

import os
import signal
import stat

import pytest

from memory_adapters.shared_work.file_leases import FileLeases
from memory_apps.warm.client import ask_warm
from memory_apps.warm.launcher import start_warm
from memory_apps.warm.paths import socket_path
from memory_apps.warm.private_dirs import LOG_NAME
from memory_apps.warm.server import LEASE_TASK
from tests.apps.warm.conftest import GENEROUS_S, answers, make_server, process_env, serving, wait_for


def server_pid(store) -> int:
    """The pid of the process holding the store's warm-server lease."""
    holders = [h for h in FileLeases(str(store)).holders() if h["task"] == LEASE_TASK]
    assert len(holders) == 1
    return holders[0]["pid"]


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_killed_server_leaves_a_stale_socket_that_the_next_server_replaces(store, server_process):
    process = server_process()
    wait_for(lambda: answers(store), "the server process to answer")
    process.send_signal(signal.SIGKILL)
    process.wait(GENEROUS_S)
    path = socket_path(str(store))
    assert stat.S_ISSOCK(os.lstat(path).st_mode)  # left behind

    assert ask_warm(str(store), {"n": 1}, timeout=30) is None  # refused, not hung

    with serving(make_server(store)):
        assert ask_warm(str(store), {"n": 1}, timeout=30) == {"echo": {"n": 1}}


def test_sigterm_ends_the_server_which_removes_its_socket_and_never_printed(store, server_process):
    process = server_process()
    wait_for(lambda: answers(store), "the server process to answer")

    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=GENEROUS_S)

    assert process.returncode == 0
    assert (out, err) == (b"", b"")
    assert not os.path.lexists(socket_path(str(store)))


def test_a_handler_that_cannot_be_built_is_logged_not_printed(store, server_process):
    process = server_process("make_broken")
    out, err = process.communicate(timeout=GENEROUS_S)

    assert process.returncode == 1
    assert (out, err) == (b"", b"")
    assert "no model for" in (store / "warm" / LOG_NAME).read_text()
    assert not os.path.lexists(socket_path(str(store)))


@pytest.fixture
def launch_env(monkeypatch, store):
    """The launcher's own environment (background processes allowed, a test handler); any server still holding
    the store's lease at the end is sent SIGTERM, so no test leaves one idling for 15 minutes."""
    for name, value in process_env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("IFLOW_MEMORY_BACKGROUND", "1")
    yield
    for holder in FileLeases(str(store)).holders():
        if holder["task"] == LEASE_TASK:
            os.kill(holder["pid"], signal.SIGTERM)
            wait_for(lambda: gone(holder["pid"]) or _zombie(holder["pid"]), "the launched server to end")


def test_the_launcher_spawns_one_server_that_answers_then_stops_on_sigterm(store, launch_env, tmp_path,
                                                                         monkeypatch):
    monkeypatch.chdir(tmp_path)  # the server runs in "/", not in the hook's directory
    assert start_warm(str(store)) is True
    wait_for(lambda: answers(store), "the launched server to answer")
    pid = server_pid(store)

    reply = ask_warm(str(store), {"prompt": "hi"}, timeout=30)
    assert reply["echo"] == {"prompt": "hi"} and reply["pid"] == pid
    if os.path.isdir("/proc"):
        assert os.readlink(f"/proc/{pid}/cwd") == "/"
    assert start_warm(str(store)) is False  # the lease is held

    os.kill(pid, signal.SIGTERM)
    wait_for(lambda: gone(pid) or _zombie(pid), "the server to end")
    assert not os.path.lexists(socket_path(str(store)))


def test_the_launcher_replaces_a_killed_server(store, server_process, launch_env):
    process = server_process()
    wait_for(lambda: answers(store), "the first server to answer")
    process.send_signal(signal.SIGKILL)
    process.wait(GENEROUS_S)
    assert ask_warm(str(store), {}, timeout=30) is None

    assert start_warm(str(store)) is True
    wait_for(lambda: answers(store), "the replacement to answer")
    assert server_pid(store) != process.pid


def test_the_launcher_does_not_respawn_at_once_after_a_failed_start(store, launch_env, monkeypatch):
    monkeypatch.setenv("IFLOW_MEMORY_TEST_WARM_HANDLER", "tests.apps.warm.handlers:make_broken")
    assert start_warm(str(store)) is True
    wait_for(lambda: "no model for" in _log(store), "the failed start to be logged")
    wait_for(lambda: not FileLeases(str(store)).busy(LEASE_TASK), "the failed server to give its lease back")

    assert start_warm(str(store)) is False


def test_the_launcher_spawns_nothing_when_background_work_is_off_or_there_is_no_store(store, tmp_path,
                                                                                   launch_env, monkeypatch):
    assert start_warm(str(tmp_path / "no-store")) is False
    assert not (tmp_path / "no-store").exists()
    monkeypatch.setenv("IFLOW_MEMORY_BACKGROUND", "0")
    assert start_warm(str(store)) is False
    assert not (store / "warm").exists()


def test_the_launcher_refuses_a_symlinked_warm_dir(store, tmp_path, launch_env):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (store / "warm").symlink_to(elsewhere)

    assert start_warm(str(store)) is False
    assert list(elsewhere.iterdir()) == []


def _log(store) -> str:
    try:
        return (store / "warm" / LOG_NAME).read_text()
    except OSError:
        return ""


def _zombie(pid: int) -> bool:
    """A child of this process that ended but was not reaped (the launcher never waits)."""
    try:
        return os.waitpid(pid, os.WNOHANG)[0] == pid
    except ChildProcessError:
        return True
