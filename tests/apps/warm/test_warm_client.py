"""The client against servers that misbehave: it returns None, never raises, never hangs past its timeout."""

from __future__ import annotations

import os
import socket
import threading
from typing import Iterator

import pytest

from memory_apps.warm.client import MAX_REPLY_BYTES, ask_warm
from memory_apps.warm.paths import socket_path


@pytest.fixture
def fake_server(store) -> Iterator:
    """A listener at the store's socket that reads each request whole, then answers with the bytes it is given
    (closing on an unread request would reset the connection, which is not what these tests are about)."""
    path = socket_path(str(store))
    os.mkdir(os.path.dirname(path), 0o700)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(4)
    replies: list[bytes] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                try:
                    while conn.recv(65536):
                        pass  # the client half-closes after its request
                    conn.sendall(replies.pop(0))
                except OSError:
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield replies
    listener.shutdown(socket.SHUT_RDWR)
    listener.close()
    thread.join(30)


@pytest.mark.parametrize("reply", [b"[1, 2]\n", b"not json\n", b"", b'"text"\n', b"\xff\n"])
def test_a_reply_that_is_not_a_json_object_is_none(store, fake_server, reply):
    fake_server.append(reply)
    assert ask_warm(str(store), {}, timeout=30) is None


def test_an_oversized_reply_is_none(store, fake_server):
    fake_server.append(b"{" + b" " * MAX_REPLY_BYTES + b"}\n")
    assert ask_warm(str(store), {}, timeout=30) is None


def test_a_reply_is_read_up_to_its_newline(store, fake_server):
    fake_server.append(b'{"a": 1}\n{"b": 2}\n')
    assert ask_warm(str(store), {}, timeout=30) == {"a": 1}


def test_a_request_that_is_not_json_serialisable_is_none(store, fake_server):
    fake_server.append(b'{"a": 1}\n')
    assert ask_warm(str(store), {"x": object()}, timeout=30) is None


def test_a_server_that_never_answers_is_none_at_the_timeout(store):
    path = socket_path(str(store))
    os.mkdir(os.path.dirname(path), 0o700)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as mute:
        mute.bind(path)
        mute.listen(1)  # accepts into the backlog and never reads or writes
        assert ask_warm(str(store), {}, timeout=0.2) is None


def test_a_socket_that_is_a_link_is_not_followed(store, tmp_path, fake_server):
    fake_server.append(b'{"a": 1}\n')
    path = socket_path(str(store))
    os.rename(path, str(tmp_path / "real.sock"))
    os.symlink(str(tmp_path / "real.sock"), path)
    assert ask_warm(str(store), {}, timeout=30) is None
