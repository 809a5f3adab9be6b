"""Which embedder serves queries and which one writes vectors, given the settings and the pinned space."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Callable, Optional

from memory_core.embedding import NormalisingEmbedder
from memory_core.errors import ProviderUnavailable
from memory_core.ports.embedder import Embedder
from memory_core.space import EmbeddingSpace

Builder = Callable[[str, str], Embedder]


def build_embedder(provider: str, model: str, model_cache: Optional[str] = None,
                   write_model_cache: bool = False) -> Embedder:
    """Construct one raw adapter; `model` '' means the provider's default. Raises ProviderUnavailable.

    `model_cache` is where the local model keeps its optimised copy (built only when `write_model_cache`: the
    background run and the write paths build it, session starts only use it)."""
    if provider == "local":
        from memory_adapters.local_embedder import MODEL_NAME as LOCAL_MODEL_NAME
        from memory_adapters.local_embedder import LocalOnnxEmbedder

        cache = {"cache_dir": model_cache, "write_model_cache": write_model_cache}
        path = os.path.expanduser(model) if model else ""
        if path and os.path.isdir(path):
            return LocalOnnxEmbedder(model_dir=path, **cache)
        if path and (os.sep in path or path.startswith(".")):
            raise ProviderUnavailable(f"local model directory {path} not found")
        if model and model != LOCAL_MODEL_NAME:
            raise ProviderUnavailable(f"unknown local model {model!r}: give a directory holding model.onnx")
        return LocalOnnxEmbedder(**cache)
    if provider == "gemini":
        from memory_adapters.gemini_embedder import DEFAULT_MODEL, GeminiEmbedder

        return GeminiEmbedder(model=model or DEFAULT_MODEL)
    if provider == "voyage":
        from memory_adapters.voyage_embedder import DEFAULT_MODEL, VoyageEmbedder

        return VoyageEmbedder(model=model or DEFAULT_MODEL)
    if provider == "openai":
        from memory_adapters.openai_embedder import DEFAULT_MODEL, OpenAIEmbedder

        return OpenAIEmbedder(model=model or DEFAULT_MODEL)
    if provider == "ollama":
        from memory_adapters.ollama_embedder import DEFAULT_MODEL, OllamaEmbedder

        return OllamaEmbedder(model=model or DEFAULT_MODEL)
    raise ProviderUnavailable(f"unknown embedding provider {provider!r}")


def embedder_builder(model_cache: Optional[str], write_model_cache: bool) -> Builder:
    """`build_embedder` bound to one store's optimised-model cache."""
    return functools.partial(build_embedder, model_cache=model_cache, write_model_cache=write_model_cache)


def auto_provider() -> Optional[str]:
    """The default for a new database: local when installed, else Gemini with a key, else none."""
    from memory_adapters.local_embedder import local_model_available

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
