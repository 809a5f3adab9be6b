"""The content hash that identifies an entry across markdown, the database and the global store."""

from __future__ import annotations

import hashlib


def normalise_description(text: str) -> str:
    """Lower-case the text and collapse every run of whitespace to one space."""
    return " ".join(text.lower().strip().split())


def content_hash(description: str) -> str:
    """Return the first 16 hex chars of SHA-256 over the normalised description (spec 001 D1)."""
    return hashlib.sha256(normalise_description(description).encode("utf-8")).hexdigest()[:16]
