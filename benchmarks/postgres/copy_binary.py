"""Rows as PostgreSQL's binary COPY format: the server parses no text vectors (1M x 384 floats), the client
formats none."""

from __future__ import annotations

import json
import struct
from datetime import datetime, timezone

from benchmarks.postgres.corpus import DIMS, Row

SIGNATURE = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
TRAILER = struct.pack(">h", -1)
COLUMNS = ('id, name, description, reasoning, category, keywords, "references", observation_count, confidence, '
           "recall_count, last_recalled_at, created_at, updated_at, source, source_project, source_user, scope, "
           "embedding")
_EPOCH = datetime(2000, 1, 1, tzinfo=timezone.utc)
_NULL = struct.pack(">i", -1)
_EMPTY_JSONB = struct.pack(">i", 3) + b"\x01[]"
_VECTOR_HEADER = struct.pack(">ihh", 4 + 4 * DIMS, DIMS, 0)


def _text(value: str) -> bytes:
    data = value.encode("utf-8")
    return struct.pack(">i", len(data)) + data


def _jsonb(value: object) -> bytes:
    data = b"\x01" + json.dumps(value).encode("utf-8")
    return struct.pack(">i", len(data)) + data


def _int4(value: int) -> bytes:
    return b"\x00\x00\x00\x04" + struct.pack(">i", value)


def _time(value) -> bytes:
    if value is None:
        return _NULL
    delta = value - _EPOCH
    return b"\x00\x00\x00\x08" + struct.pack(">q", (delta.days * 86400 + delta.seconds) * 1_000_000)


def encode(rows: list[Row]) -> bytes:
    """The binary COPY tuples of `rows` (COLUMNS order; no signature or trailer)."""
    out = bytearray()
    for r in rows:
        out += b"\x00\x12"  # 18 fields
        out += _text(r.id) + _text(r.name) + _text(r.description) + _text(r.reasoning) + _text(r.category)
        out += _jsonb(r.keywords) + _EMPTY_JSONB + _int4(r.observation_count) + _text(r.confidence)
        out += _int4(r.recall_count) + _time(r.last_recalled_at) + _time(r.created_at) + _time(r.updated_at)
        out += _text(r.source) + _text(r.source_project) + _text(r.source_user)
        out += _NULL if r.scope is None else _text(r.scope)
        out += _VECTOR_HEADER + r.vector.astype(">f4").tobytes()
    return bytes(out)
