"""Which embedder serves queries and which one writes vectors, given the settings and the pinned space."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from memory_core.embedding.normalising import NormalisingEmbedder
from memory_core.embedding.space import EmbeddingSpace
from memory_core.errors import ProviderUnavailable
from memory_core.ports.embedder import Embedder

Builder = Callable[[str, str], Embedder]
"""Builds the embedding adapter of a provider name and a model ('' for the provider's default); raises
ProviderUnavailable."""
NO_EMBEDDER = "no embedding provider configured"


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


def _no_default() -> Optional[str]:
    return None


def plan_embedding(configured: str, model: str, pinned: Optional[EmbeddingSpace], builder: Builder,
                   want_target: bool = True,
                   auto_provider: Callable[[], Optional[str]] = _no_default) -> EmbeddingPlan:
    """Resolve `memory_embedding_provider` against the database's pinned space.

    - `none`: no vectors at all.
    - `auto`: a pinned database keeps its space; a new one gets `auto_provider()` (the wiring's: local, else
      gemini with a key, else none).
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
