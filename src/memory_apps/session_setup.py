"""Builds the session-start use case from a wiring: the container or the hook's hand wiring alike."""

from __future__ import annotations

from memory_apps.retrieval_setup import embedding_plan
from memory_core.usecases.session_start import SessionStart


def build_session_start(wiring) -> SessionStart:
    """The use case with the pinned space's query embedder and a read-only vector index (session starts never
    write the vector cache: write paths and the background run do)."""
    plan = embedding_plan(wiring, want_target=False)
    index = None
    if plan.query is not None:
        from memory_adapters.numpy_vector_index import NumpyVectorIndex

        index = NumpyVectorIndex(wiring.store(), plan.query.dimensions, cache_path=wiring.config.db_path() + ".vectors",
                                 write_cache=False)
    problem = plan.problem or "no embedding provider configured"
    return SessionStart(
        store=wiring.store(),
        retrieve=wiring.retrieve(embedder=plan.query, vector_index=index, embedder_problem=problem),
        importer=wiring.importer,
        context_source=wiring.context_source(),
        shared_work=wiring.shared_work(),
        clock=wiring.clock(),
        embedder=plan.query,
        vector_index=index,
        embedder_problem=problem,
    )
