"""Keyword generator port: labels an entry with 3-10 keywords."""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class KeywordGenerator(Protocol):
    """Produces keyword labels for an entry; may raise KeywordGenerationError."""

    def generate(self, name: str, description: str, reasoning: str, category: str) -> list[str]:
        """Return candidate keywords (validated by the core afterwards)."""
        ...
