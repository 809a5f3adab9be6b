"""Wiring the retrieve-and-rank use case to the configured query embedder and the vector index.

Works with the dependency-injector container and with the hook's hand wiring alike: both expose the same
provider-style calls (`store()`, `config.db_path()`, `embedder_builder()`, `retrieve(...)`)."""

from __future__ import annotations

from memory_apps.embedding_setup import EmbeddingPlan, plan_embedding
from memory_core.space import pinned_space
from memory_core.usecases.retrieve import RetrieveAndRank


def embedding_plan(container, want_target: bool) -> EmbeddingPlan:
    """Resolve the configured provider against the space the database is pinned to."""
    return plan_embedding(
        container.config.embedding_provider() or "auto",
        container.config.embedding_model() or "",
        pinned_space(container.store()),
        container.embedder_builder(),
        want_target=want_target,
    )


def retrieval_index(container, dimensions: int):
    """The numpy vector index over the store, with its flat cache file beside the database."""
    from memory_adapters.numpy_vector_index import NumpyVectorIndex

    return NumpyVectorIndex(container.store(), dimensions, cache_path=container.config.db_path() + ".vectors")


def retrieval_for(container, plan: EmbeddingPlan) -> RetrieveAndRank:
    """The retrieve-and-rank use case with the plan's query embedder and a numpy index over its space."""
    index = retrieval_index(container, plan.query.dimensions) if plan.query is not None else None
    return container.retrieve(embedder=plan.query, vector_index=index,
                              embedder_problem=plan.problem or "no embedding provider configured")
