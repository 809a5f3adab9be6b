"""The viewer's listening socket: 127.0.0.1 only, and no ~40 ms wait on each request of a kept-alive connection."""

from __future__ import annotations

import socket
import threading

import pytest

pytest.importorskip("uvicorn", reason="the viewer needs the ui extra: pip install 'iflow-memory[ui]'")


def test_the_socket_is_local_and_sends_without_delay():
    from memory_apps.web.server import bind

    sock = bind(0)
    try:
        assert sock.getsockname()[0] == "127.0.0.1"
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    finally:
        sock.close()


def test_an_accepted_connection_sends_without_delay():
    from memory_apps.web.server import bind

    sock = bind(0)
    accepted = []
    thread = threading.Thread(target=lambda: accepted.append(sock.accept()[0]), daemon=True)
    thread.start()
    client = socket.create_connection(sock.getsockname(), timeout=30)
    thread.join(timeout=60)  # a bound only a hang reaches
    try:
        assert accepted and accepted[0].getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    finally:
        client.close()
        for conn in accepted:
            conn.close()
        sock.close()
