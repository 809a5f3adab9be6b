"""A provider-neutral fake embedding service that the per-vendor fake transports put on the wire.

Each transport (see `_embedding_transports`) checks the HTTP request the real API would get, records what it
understood as a `Call`, asks this service for the outcome, and encodes it the way that vendor answers.
"""

from __future__ import annotations

import base64
import hashlib
import random
import struct
from dataclasses import dataclass, field
from typing import Callable, Optional


@dataclass
class Call:
    """One request as the fake server understood it."""

    url: str
    texts: list[str]
    model: str
    kind: Optional[str]  # the task / input type the request carried, None when the API has none
    dimensions: Optional[int]
    auth: Optional[str]  # the key found where the vendor expects it, None when absent


def raw_vector(text: str, dimensions: int) -> list[float]:
    """A deterministic, never-zero, deliberately non-unit vector for a text (so normalisation matters)."""
    rng = random.Random(hashlib.sha256(text.encode()).digest())
    return [rng.uniform(-3.0, 3.0) for _ in range(dimensions)]


def float32_base64(vector: list[float]) -> str:
    """The base64 little-endian float32 encoding OpenAI and Voyage answer with for encoding_format=base64."""
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")


@dataclass
class FakeEmbeddingService:
    """What the server knows: the expected model, dimensions and key, and a script of answers."""

    model: str
    dimensions: int
    key: Optional[str] = None
    calls: list[Call] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)  # one per request, in order; 200 once exhausted
    error_detail: str = "request failed"
    network_down: bool = False
    vectors: Optional[Callable[[list[str]], list[list[float]]]] = None

    def check(self, condition: bool, problem: str) -> None:
        """Remember a request that the real API would not have received in this shape."""
        if not condition:
            self.problems.append(problem)

    def record(self, call: Call) -> None:
        """Store one understood request."""
        self.calls.append(call)

    def next_status(self) -> int:
        """The HTTP status scripted for this request."""
        return self.statuses.pop(0) if self.statuses else 200

    def answer(self, texts: list[str]) -> list[list[float]]:
        """The vectors for these texts (scripted, or deterministic per text)."""
        if self.vectors is not None:
            return self.vectors(texts)
        return [raw_vector(t, self.dimensions) for t in texts]

    def fail_with(self, *statuses: int) -> None:
        """Answer the next requests with these HTTP statuses."""
        self.statuses.extend(statuses)


STATUS_NAMES = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
                429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}
