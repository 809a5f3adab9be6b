"""Which embedder serves queries and which one writes vectors, given the settings and the pinned space."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional

from memory_apps.wiring.adapter_factories import embedder_recipe
from memory_core.embedding.normalising import NormalisingEmbedder
from memory_core.errors import ProviderUnavailable
from memory_core.ports.embedder import Embedder
from memory_core.embedding.space import EmbeddingSpace

Builder = Callable[[str, str], Embedder]
"""Builds the embedding adapter of a provider name and a model ('' for the provider's default); raises
ProviderUnavailable."""
KEPT_EMBEDDERS = 4
NO_EMBEDDER = "no embedding provider configured"


def embedders_from_table(values: Mapping[str, Any]) -> Builder:
    """A builder that asks the adapter table for a provider's embedder, with that recipe's configuration values
    (the hook's wiring; the container asks its embedder Selector instead)."""
    def build(provider: str, model: str) -> Embedder:
        recipe = embedder_recipe(provider)
        return recipe.build(model=model, **{key: values[key] for key in recipe.values})
    return build


def kept_embedders(builder: Builder, size: int = KEPT_EMBEDDERS) -> Builder:
    """The builder, remembering the last few embedders it built: a long-running host loads a model once."""
    return functools.lru_cache(maxsize=size)(builder)


def auto_provider() -> Optional[str]:
    """The default for a new database: local when installed, else Gemini with a key, else none."""
    from memory_adapters.embedders.local_embedder import local_model_available

    if local_model_available():
        return "local"
    if os.environ.get("GEMINI_API_KEY"):
        return "gemini"
    return None


@dataclass
class EmbeddingPlan:
    """The embedder for queries (always the pinned space), the one for writes, and why one is missing."""

    query: Optional[Embedder] = None
    target: Optional[Embedder] = None
    problem: str = ""

    @property
    def query_problem(self) -> str:
        """Why queries rank without vectors, as the diagnostic line says it."""
        return self.problem or NO_EMBEDDER


def _try(builder: Builder, provider: str, model: str) -> tuple[Optional[Embedder], str]:
    try:
        return NormalisingEmbedder(builder(provider, model)), ""
    except ProviderUnavailable as exc:
        return None, f"{provider} unavailable: {exc}"
    except Exception as exc:  # noqa: BLE001 - a broken SDK must not break the hook
        return None, f"{provider} failed to start: {type(exc).__name__}"


def plan_embedding(configured: str, model: str, pinned: Optional[EmbeddingSpace], builder: Builder,
                   want_target: bool = True) -> EmbeddingPlan:
    """Resolve `memory_embedding_provider` against the database's pinned space.

    - `none`: no vectors at all.
    - `auto`: a pinned database keeps its space; a new one gets local, else gemini, else none.
    - explicit provider: writes go to that provider; if the database is pinned elsewhere, queries keep
      using the pinned space until the re-embed completes.
    """
    if configured == "none":
        return EmbeddingPlan(problem="memory_embedding_provider is none")
    if configured == "auto":
        if pinned is not None:
            query, problem = _try(builder, pinned.provider, pinned.model)
            return EmbeddingPlan(query=query, target=query, problem=problem)
        provider = auto_provider()
        if provider is None:
            return EmbeddingPlan(problem="no embedding provider available (install iflow-memory[local])")
        embedder, problem = _try(builder, provider, "")
        return EmbeddingPlan(query=embedder, target=embedder, problem=problem)
    if pinned is not None and not want_target:
        query, problem = _try(builder, pinned.provider, pinned.model)
        return EmbeddingPlan(query=query, problem=problem)
    target, problem = _try(builder, configured, model)
    if pinned is None or (target is not None and EmbeddingSpace.of(target) == pinned):
        return EmbeddingPlan(query=target, target=target, problem=problem)
    query, old_problem = _try(builder, pinned.provider, pinned.model)
    return EmbeddingPlan(query=query, target=target, problem=old_problem or problem)
