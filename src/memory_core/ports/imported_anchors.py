"""Imported anchors port: a store that gives freshly imported entries their markdown's anchors in one go (ADR 26)."""

from __future__ import annotations

from typing import Mapping, Protocol, Sequence, runtime_checkable

from memory_core.anchors.anchor import Anchor


@runtime_checkable
class ImportedAnchors(Protocol):
    """An optional capability beside EntryLifecycle: a rebuild sets thousands of anchors, and each `set_anchors`
    would be a transaction and a markdown write owed for markdown that already holds them."""

    def import_anchors(self, anchors: Mapping[str, Sequence[Anchor]]) -> int:
        """Set the anchors of these live entries in one transaction, owing no markdown; how many were set."""
        ...
