"""One connection to the warm server: who is calling, the request it sends, the reply it gets."""

from __future__ import annotations

import json
import os
import socket
from typing import Optional

from memory_apps.warm.client import MAX_REPLY_BYTES, MAX_REQUEST_BYTES

_CHUNK = 65536


class RequestTooLarge(Exception):
    """More than MAX_REQUEST_BYTES before the end of the request."""


def peer_uid(conn: socket.socket) -> Optional[int]:
    """The uid of the process at the other end (Linux SO_PEERCRED), None where the kernel does not say."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    import struct

    _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    return uid


def peer_allowed(conn: socket.socket) -> bool:
    """Only this user's processes may ask; where the uid is unknown the 0700 directory is the guard."""
    uid = peer_uid(conn)
    return uid is None or uid == os.geteuid()


def read_request(conn: socket.socket) -> bytes:
    """The request's line (or all up to the client's half-close); RequestTooLarge past the limit; the socket's
    timeout (socket.timeout / OSError) for a client that stops sending."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = conn.recv(_CHUNK)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if b"\n" in chunk:
            break
        if size > MAX_REQUEST_BYTES:
            raise RequestTooLarge()
    line = b"".join(chunks).split(b"\n", 1)[0]
    if len(line) > MAX_REQUEST_BYTES:
        raise RequestTooLarge()
    return line


def parse_request(raw: bytes) -> Optional[dict]:
    """The request object, None when it is not a JSON object."""
    try:
        request = json.loads(raw)
    except ValueError:  # UnicodeDecodeError included
        return None
    return request if isinstance(request, dict) else None


def encode_reply(reply: object) -> bytes:
    """The reply's line; a reply that is not a JSON-serialisable object, or too large, becomes an error."""
    if not isinstance(reply, dict):
        return encode_reply({"error": "bad reply"})
    try:
        data = json.dumps(reply).encode("ascii") + b"\n"
    except (TypeError, ValueError):
        return encode_reply({"error": "bad reply"})
    if len(data) > MAX_REPLY_BYTES:
        return encode_reply({"error": "reply too large"})
    return data
