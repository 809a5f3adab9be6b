"""The embedding space a database is pinned to (provider, model, dimensions in `_metadata`). The space itself,
`EmbeddingSpace`, lives beside the Embedder port (the ports exchange it) and is re-exported here."""

from __future__ import annotations

from typing import Optional

from memory_core.ports.embedder import EmbeddingSpace
from memory_core.ports.entry_store import EntryStore

__all__ = ["EmbeddingSpace", "pin_space", "pinned_space", "staged_space"]

PROVIDER_KEY = "embedding_provider"
MODEL_KEY = "embedding_model"
DIMENSIONS_KEY = "embedding_dimensions"


def pinned_space(store: EntryStore) -> Optional[EmbeddingSpace]:
    """Read the space the stored vectors belong to, or None when nothing is pinned."""
    provider = store.get_metadata(PROVIDER_KEY)
    model = store.get_metadata(MODEL_KEY)
    dims = store.get_metadata(DIMENSIONS_KEY)
    if not provider or not model or not dims or provider == "none":
        return None
    try:
        return EmbeddingSpace(provider, model, int(dims))
    except ValueError:
        return None


def pin_space(store: EntryStore, space: EmbeddingSpace) -> None:
    """Record the space of the vectors being stored."""
    store.set_metadata(PROVIDER_KEY, space.provider)
    store.set_metadata(MODEL_KEY, space.model)
    store.set_metadata(DIMENSIONS_KEY, str(space.dimensions))


STAGED_PROVIDER_KEY = "staged_embedding_provider"
STAGED_MODEL_KEY = "staged_embedding_model"
STAGED_DIMENSIONS_KEY = "staged_embedding_dimensions"


def staged_space(store: EntryStore) -> Optional[EmbeddingSpace]:
    """The space a re-embed in progress is building, or None."""
    provider = store.get_metadata(STAGED_PROVIDER_KEY)
    model = store.get_metadata(STAGED_MODEL_KEY)
    dims = store.get_metadata(STAGED_DIMENSIONS_KEY)
    if not provider or not model or not dims:
        return None
    try:
        return EmbeddingSpace(provider, model, int(dims))
    except ValueError:
        return None
