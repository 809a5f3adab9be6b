"""Descriptions whose content-hash ids share a prefix, found by trying numbered texts (birthday odds: a few
hundred tries for 4 hex characters), for the id-prefix tests."""

from __future__ import annotations

from memory_core.entries.hashing import content_hash


def sharing_a_prefix(length: int = 4, stem: str = "Keep learning number") -> tuple[str, str]:
    """Two different descriptions whose ids start with the same `length` characters."""
    seen: dict[str, str] = {}
    n = 0
    while True:
        text = f"{stem} {n} in mind when the build breaks."
        prefix = content_hash(text)[:length]
        if prefix in seen:
            return seen[prefix], text
        seen[prefix] = text
        n += 1
