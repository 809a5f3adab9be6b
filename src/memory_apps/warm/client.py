"""Ask the warm server one question: stdlib only and nothing of the project but `paths`, so a hook can import it
before anything heavy and fall back to its cold path whenever this returns None.

Wire format: one JSON object and a newline each way, one request per connection (the client also half-closes
its side after sending). The client adds `"version"` (`paths.code_version()`), so a server running older code
answers `{"error": "version"}` and exits.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import time
from typing import Optional

from memory_apps.warm.paths import code_version, private_dir_ok, socket_path

MAX_REQUEST_BYTES = 1 << 20  # a pasted log in a prompt fits; the hook embeds far less of it anyway
MAX_REPLY_BYTES = 1 << 20
_CHUNK = 65536


def ask_warm(store_dir: str, request: dict, timeout: float) -> Optional[dict]:
    """The warm server's reply (a JSON object, `{"error": ...}` included) to `request`, or None when there is no
    usable server: no socket, a refused connection, a foreign owner, the timeout, a reply too large or not an
    object. Never raises."""
    try:
        return _ask(socket_path(store_dir), request, time.monotonic() + max(0.0, float(timeout)))
    except Exception:  # the hook's cold path answers instead; nothing here may break a prompt
        return None


def _ask(path: str, request: dict, deadline: float) -> Optional[dict]:
    if not _socket_ok(path):
        return None
    payload = json.dumps({**request, "version": code_version()}).encode("ascii") + b"\n"
    if len(payload) > MAX_REQUEST_BYTES:
        return None
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(_left(deadline))
        sock.connect(path)
        if not _peer_is_this_user(sock):
            return None
        sock.settimeout(_left(deadline))
        sock.sendall(payload)
        sock.shutdown(socket.SHUT_WR)
        raw = _read_reply(sock, deadline)
    if raw is None:
        return None
    reply = json.loads(raw)
    return reply if isinstance(reply, dict) else None


def _socket_ok(path: str) -> bool:
    """Only a socket this user owns, in a directory private to this user: never hand a prompt to a planted one."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return (stat.S_ISSOCK(info.st_mode) and info.st_uid == os.geteuid()
            and private_dir_ok(os.path.dirname(path)))


def _peer_is_this_user(sock: socket.socket) -> bool:
    """The listening process runs as this user (Linux SO_PEERCRED; elsewhere the private directory vouches)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True
    import struct  # a built-in module: free

    _pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    return uid == os.geteuid()


def _read_reply(sock: socket.socket, deadline: float) -> Optional[bytes]:
    """One line (or everything up to the server's close), None past MAX_REPLY_BYTES."""
    chunks: list[bytes] = []
    size = 0
    while True:
        sock.settimeout(_left(deadline))
        chunk = sock.recv(_CHUNK)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_REPLY_BYTES:
            return None
        if b"\n" in chunk:
            break
    return b"".join(chunks).split(b"\n", 1)[0]


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("warm server too slow")
    return left
