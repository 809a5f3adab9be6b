"""The embedding space a database is pinned to (provider, model, dimensions in `_metadata`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from memory_core.ports.embedder import Embedder
from memory_core.ports.entry_store import EntryStore

PROVIDER_KEY = "embedding_provider"
MODEL_KEY = "embedding_model"
DIMENSIONS_KEY = "embedding_dimensions"


@dataclass(frozen=True)
class EmbeddingSpace:
    """One vector space: vectors are only comparable within the same space."""

    provider: str
    model: str
    dimensions: int

    @classmethod
    def of(cls, embedder: Embedder) -> "EmbeddingSpace":
        """The space an embedder produces vectors in."""
        return cls(embedder.provider_name, embedder.model_name, int(embedder.dimensions))

    @property
    def label(self) -> str:
        """Human-readable name, e.g. 'local/all-MiniLM-L6-v2 (384d)'."""
        return f"{self.provider}/{self.model} ({self.dimensions}d)"


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
