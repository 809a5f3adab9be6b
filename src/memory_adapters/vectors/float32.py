"""How the adapters keep a vector: little-endian float32, 4 bytes per dimension (design TD2). The core hands
and receives vectors as sequences of floats; only the stores and the vector index know these bytes."""

from __future__ import annotations

import struct
from typing import Iterable, Protocol, Sequence

BYTES_PER_DIMENSION = 4


def pack_vector(vector: Sequence[float]) -> bytes:
    """The stored bytes of a vector."""
    return struct.pack(f"<{len(vector)}f", *vector)


def unpack_vector(data: bytes) -> list[float]:
    """The vector stored as `data` (a whole number of float32 values)."""
    return list(struct.unpack(f"<{len(data) // BYTES_PER_DIMENSION}f", data))


class StoredVectors(Protocol):
    """What a vector index reads from a store: every entry's vector, as stored."""

    def vectors(self) -> Iterable[tuple[str, bytes]]:
        """Yield (entry id, float32 little-endian bytes) for every entry with a vector."""
        ...
