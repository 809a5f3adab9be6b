"""The embedding space a database is pinned to (provider, model, dimensions in `_metadata`). The space itself,
`EmbeddingSpace`, lives beside the Embedder port (the ports exchange it) and is re-exported here."""

from __future__ import annotations

from typing import Optional

from memory_core.ports.embedder import EmbeddingSpace
from memory_core.ports.entry_store import EntryStore

__all__ = ["EmbeddingSpace", "SPACE_KEYS", "STAGED_KEYS", "pin_space", "pinned_space", "space_metadata",
           "staged_space"]

PROVIDER_KEY = "embedding_provider"
MODEL_KEY = "embedding_model"
DIMENSIONS_KEY = "embedding_dimensions"
SPACE_KEYS = (PROVIDER_KEY, MODEL_KEY, DIMENSIONS_KEY)
"""The `_metadata` keys of the space the stored vectors belong to."""
STAGED_KEYS = tuple(f"staged_{key}" for key in SPACE_KEYS)
"""The `_metadata` keys of the space a re-embed in progress is building."""


def space_metadata(space: EmbeddingSpace, keys: tuple[str, ...] = SPACE_KEYS) -> list[tuple[str, str]]:
    """The (key, value) metadata that records `space` under `keys` (the pinned space's, or STAGED_KEYS)."""
    return list(zip(keys, (space.provider, space.model, str(space.dimensions))))


def _space_at(store: EntryStore, keys: tuple[str, ...]) -> Optional[EmbeddingSpace]:
    provider, model, dims = (store.get_metadata(key) for key in keys)
    if not provider or not model or not dims:
        return None
    try:
        return EmbeddingSpace(provider, model, int(dims))
    except ValueError:
        return None


def pinned_space(store: EntryStore) -> Optional[EmbeddingSpace]:
    """Read the space the stored vectors belong to, or None when nothing is pinned."""
    space = _space_at(store, SPACE_KEYS)
    return None if space is None or space.provider == "none" else space


def pin_space(store: EntryStore, space: EmbeddingSpace) -> None:
    """Record the space of the vectors being stored."""
    for key, value in space_metadata(space):
        store.set_metadata(key, value)


def staged_space(store: EntryStore) -> Optional[EmbeddingSpace]:
    """The space a re-embed in progress is building, or None."""
    return _space_at(store, STAGED_KEYS)
