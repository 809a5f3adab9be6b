"""Builds the session-start use case from a wiring: the container or the hook's wiring alike."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memory_apps.wiring.retrieval_setup import embedding_plan
from memory_core.usecases.session_start import SessionStart

if TYPE_CHECKING:
    from memory_apps.wiring.session_wiring import SessionWiring


def build_session_start(wiring: SessionWiring) -> SessionStart:
    """The use case with the pinned space's query embedder and a read-only vector index (session starts never
    write the vector cache: write paths and the background run do)."""
    plan = embedding_plan(wiring, want_target=False)
    index = None
    if plan.query is not None:
        index = wiring.vector_index(dimensions=plan.query.dimensions, write_cache=False)
    return SessionStart(
        store=wiring.store(),
        retrieve=wiring.retrieve(embedder=plan.query, vector_index=index, embedder_problem=plan.query_problem),
        importer=wiring.importer,
        context_source=wiring.context_source(),
        shared_work=wiring.shared_work(),
        clock=wiring.clock(),
        embedder=plan.query,
        vector_index=index,
        embedder_problem=plan.query_problem,
    )
