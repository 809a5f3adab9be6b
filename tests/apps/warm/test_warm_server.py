"""The warm server in a thread: private socket, one per store, answers survive bad clients, and it ends itself."""

from __future__ import annotations

import json
import os
import socket
import stat
import threading

import pytest

from memory_apps.warm import connection
from memory_apps.warm.client import MAX_REPLY_BYTES, MAX_REQUEST_BYTES, ask_warm
from memory_apps.warm.paths import code_version, socket_path
from tests.apps.warm.conftest import make_server, serving, wait_for
from tests.apps.warm.test_warm_paths import deep_store


def raw_exchange(path: str, payload: bytes) -> dict:
    """Send bytes as they are (no client checks, no version added) and read the reply."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(30)
        sock.connect(path)
        try:
            sock.sendall(payload)
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # the server may answer and close before reading all of an oversized request
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return json.loads(data)


def test_the_socket_is_0600_in_a_0700_directory_and_answers(store):
    with serving(make_server(store)):
        path = socket_path(str(store))
        assert stat.S_IMODE(os.lstat(path).st_mode) == 0o600
        assert stat.S_IMODE(os.lstat(os.path.dirname(path)).st_mode) == 0o700

        assert ask_warm(str(store), {"prompt": "hello"}, timeout=30) == {"echo": {"prompt": "hello"}}


def test_a_deep_store_is_served_through_the_fallback_socket(tmp_path):
    deep = deep_store(tmp_path)
    with serving(make_server(deep)):
        path = socket_path(deep)
        assert not path.startswith(deep)
        assert stat.S_IMODE(os.lstat(os.path.dirname(path)).st_mode) == 0o700

        assert ask_warm(deep, {"n": 1}, timeout=30) == {"echo": {"n": 1}}
    assert not os.path.lexists(path)


def test_a_second_server_for_the_same_store_exits_at_once(store):
    with serving(make_server(store)):
        assert make_server(store).serve() == "lease"
        assert ask_warm(str(store), {}, timeout=30) == {"echo": {}}


def test_with_no_server_the_client_returns_none_without_connecting(store, monkeypatch):
    attempts = []
    monkeypatch.setattr(socket.socket, "connect", lambda self, address: attempts.append(address))

    assert ask_warm(str(store), {"prompt": "x"}, timeout=60) is None
    assert attempts == []


def test_a_hung_handler_makes_the_client_give_up_at_its_timeout_and_the_server_recovers(store):
    release = threading.Event()
    entered = threading.Event()

    def handler(request: dict) -> dict:
        if request.get("hang"):
            entered.set()
            release.wait(60)
        return {"ok": True}

    with serving(make_server(store, handler)):
        first: list = []
        stuck = threading.Thread(target=lambda: first.append(ask_warm(str(store), {"hang": True}, timeout=60)))
        stuck.start()
        wait_for(entered.is_set, "the handler to hang")

        assert ask_warm(str(store), {}, timeout=0.3) is None  # waits behind the hung call, then gives up

        release.set()
        stuck.join(60)
        assert first == [{"ok": True}]
        assert ask_warm(str(store), {}, timeout=30) == {"ok": True}


def test_a_silent_client_does_not_block_the_next_one(store):
    with serving(make_server(store, read_timeout=60)):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as silent:
            silent.connect(socket_path(str(store)))  # connects and never sends
            assert ask_warm(str(store), {"n": 2}, timeout=30) == {"echo": {"n": 2}}


def test_a_request_that_is_not_a_json_object_gets_an_error_and_the_server_lives(store):
    with serving(make_server(store)) as ended:
        path = socket_path(str(store))
        assert "error" in raw_exchange(path, b"{not json\n")
        assert "error" in raw_exchange(path, b"[1, 2]\n")
        assert "error" in raw_exchange(path, b"\xff\xfe\n")
        assert ask_warm(str(store), {"n": 3}, timeout=30) == {"echo": {"n": 3}}
        assert ended == []


def test_an_oversized_request_is_refused(store):
    with serving(make_server(store)):
        reply = raw_exchange(socket_path(str(store)), b"x" * (MAX_REQUEST_BYTES + 100))
        assert reply == {"error": "request too large"}
        assert ask_warm(str(store), {"prompt": "y" * (MAX_REQUEST_BYTES + 1)}, timeout=30) is None
        assert ask_warm(str(store), {}, timeout=30) == {"echo": {}}


def test_a_handler_exception_is_an_error_reply_and_the_server_lives(store):
    def handler(request: dict) -> dict:
        if request.get("boom"):
            raise ValueError("boom")
        return {"fine": True}

    with serving(make_server(store, handler)):
        assert ask_warm(str(store), {"boom": 1}, timeout=30) == {"error": "handler failed: ValueError"}
        assert ask_warm(str(store), {}, timeout=30) == {"fine": True}


def test_a_reply_too_large_for_the_client_is_an_error(store):
    with serving(make_server(store, lambda request: {"text": "z" * MAX_REPLY_BYTES})):
        assert ask_warm(str(store), {}, timeout=30) == {"error": "reply too large"}


def test_a_reply_that_is_not_an_object_is_an_error(store):
    with serving(make_server(store, lambda request: ["a", "list"])):
        assert ask_warm(str(store), {}, timeout=30) == {"error": "bad reply"}


def test_another_version_gets_an_error_and_the_server_exits(store):
    server = make_server(store)
    with serving(server) as ended:
        path = socket_path(str(store))
        reply = raw_exchange(path, json.dumps({"version": "older code"}).encode() + b"\n")
        assert reply == {"error": "version"}
        wait_for(lambda: ended, "the server to end")
    assert ended == ["version"]
    assert not os.path.lexists(path)


def test_the_client_sends_the_installed_version(store):
    seen = []
    server = make_server(store, lambda request: seen.append(request) or {})
    with serving(server):
        assert ask_warm(str(store), {"a": 1}, timeout=30) == {}
    assert server.version == code_version()
    assert seen == [{"a": 1}]


def test_the_server_ends_itself_when_idle_on_the_injected_ticker(store):
    now = [1000.0]
    server = make_server(store, idle_seconds=900, ticker=lambda: now[0])
    with serving(server) as ended:
        now[0] += 899
        assert ask_warm(str(store), {}, timeout=30) == {"echo": {}}  # a request restarts the idle count
        now[0] += 899
        assert ended == []
        now[0] += 2
        wait_for(lambda: ended, "the idle server to end")
    assert ended == ["idle"]
    assert not os.path.lexists(socket_path(str(store)))


def test_a_removed_socket_file_ends_the_server(store):
    with serving(make_server(store)) as ended:
        os.unlink(socket_path(str(store)))
        wait_for(lambda: ended, "the server to end")
    assert ended == ["socket"]


def test_a_replaced_socket_file_ends_the_server_and_is_left_to_its_owner(store):
    path = socket_path(str(store))
    with serving(make_server(store)) as ended:
        os.unlink(path)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as newcomer:
            newcomer.bind(path)
            wait_for(lambda: ended, "the server to end")
            assert stat.S_ISSOCK(os.lstat(path).st_mode)
    assert ended == ["socket"]


def test_a_symlinked_warm_dir_is_refused(store, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (store / "warm").symlink_to(elsewhere)

    assert make_server(store).serve() == "unsafe"
    assert list(elsewhere.iterdir()) == []
    assert ask_warm(str(store), {}, timeout=30) is None


def test_a_file_where_the_socket_goes_is_left_alone(store):
    (store / "warm").mkdir(mode=0o700)
    (store / "warm" / "hooks.sock").write_text("mine")

    assert make_server(store).serve() == "unsafe"
    assert (store / "warm" / "hooks.sock").read_text() == "mine"


def test_a_warm_dir_others_can_enter_makes_the_client_refuse(store):
    with serving(make_server(store)):
        os.chmod(store / "warm", 0o755)
        assert ask_warm(str(store), {}, timeout=30) is None


def test_a_caller_of_another_uid_gets_no_answer(store, monkeypatch):
    monkeypatch.setattr(connection, "peer_uid", lambda conn: os.geteuid() + 1)
    calls = []
    with serving(make_server(store, lambda request: calls.append(request) or {})):
        assert ask_warm(str(store), {}, timeout=30) is None
    assert calls == []


def test_a_fallback_dir_owned_by_someone_else_is_refused(tmp_path, short_runtime_dirs, monkeypatch):
    if os.geteuid() != 0:
        pytest.skip("making a directory owned by another user needs root")
    deep = deep_store(tmp_path)
    foreign = os.path.dirname(socket_path(deep))
    os.mkdir(foreign, 0o700)
    os.chown(foreign, 12345, 12345)

    assert make_server(deep).serve() == "unsafe"
    assert os.listdir(foreign) == []
