"""Wiring the retrieve-and-rank use case to the configured query embedder and the vector index, over any
`SessionWiring`: the dependency-injector container or the hook's wiring."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Optional, Sequence

from memory_apps.wiring.embedding_setup import EmbeddingPlan, plan_embedding
from memory_core.ports.embedder import Embedder
from memory_core.embedding.space import EmbeddingSpace, pinned_space
from memory_core.usecases.retrieve import RetrieveAndRank

if TYPE_CHECKING:
    from memory_apps.wiring.session_wiring import SessionWiring

REMEMBERED_QUERIES = 128


def embedding_plan(wiring: SessionWiring, want_target: bool) -> EmbeddingPlan:
    """Resolve the configured provider against the space the database is pinned to."""
    return plan_embedding(
        wiring.config.embedding_provider() or "auto",
        wiring.config.embedding_model() or "",
        pinned_space(wiring.store()),
        wiring.embedder_builder(),
        want_target=want_target,
    )


def retrieval_index(wiring: SessionWiring, dimensions: int):
    """The vector index over the store in one space, which refreshes its flat cache file beside the database."""
    return wiring.vector_index(dimensions=dimensions)


def retrieval_for(wiring: SessionWiring, plan: EmbeddingPlan) -> RetrieveAndRank:
    """The retrieve-and-rank use case with the plan's query embedder and a vector index over its space."""
    index = retrieval_index(wiring, plan.query.dimensions) if plan.query is not None else None
    return wiring.retrieve(embedder=plan.query, vector_index=index, embedder_problem=plan.query_problem)


class RememberedQueries:
    """Implements Embedder over another one, keeping the vectors of its last few queries in memory: a host
    asked the same thing again embeds it once."""

    def __init__(self, inner: Embedder, size: int = REMEMBERED_QUERIES) -> None:
        self.inner = inner
        self.provider_name, self.model_name, self.dimensions = inner.provider_name, inner.model_name, inner.dimensions
        self._size = size
        self._vectors: OrderedDict[str, tuple[float, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def embed_query(self, text: str) -> list[float]:
        """The vector remembered for this text, else the inner embedder's (then remembered)."""
        with self._lock:
            vector = self._vectors.get(text)
            if vector is not None:
                self._vectors.move_to_end(text)
                return list(vector)
        vector = tuple(self.inner.embed_query(text))
        with self._lock:
            self._vectors[text] = vector
            while len(self._vectors) > self._size:
                self._vectors.popitem(last=False)
        return list(vector)

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """The inner embedder's document vectors (never remembered)."""
        return self.inner.embed_documents(texts)


class KeptRetrieval:
    """What a long-running host keeps between searches: the retrieve-and-rank use case with its query embedder
    (remembering recent queries) and one vector index over the store (keeping its matrix). The use case is
    rebuilt when the store changed, whoever committed (the pinned space may have changed with it); the index
    and the remembered queries survive that as long as the store and the space stay the same."""

    def __init__(self, container: SessionWiring) -> None:
        self._container = container
        self._kept: Optional[tuple[object, object, RetrieveAndRank]] = None  # store, change token, use case
        self._queries: dict[EmbeddingSpace, RememberedQueries] = {}
        self._index: Optional[tuple[object, int, object]] = None  # store, dimensions, index

    def current(self) -> RetrieveAndRank:
        """The use case for a search now."""
        store = self._container.store()
        change_token = getattr(store, "change_token", None)
        token = change_token() if callable(change_token) else None
        kept = self._kept
        if kept is not None and token is not None and kept[0] is store and kept[1] == token:
            return kept[2]
        plan = embedding_plan(self._container, want_target=False)
        query = self._remembered(plan.query) if plan.query is not None else None
        index = self._vector_index(store, query.dimensions) if query is not None else None
        retrieval = self._container.retrieve(embedder=query, vector_index=index, embedder_problem=plan.query_problem)
        # Without a query embedder the next search tries the provider again (it may be back by then).
        self._kept = (store, token, retrieval) if token is not None and query is not None else None
        return retrieval

    def _remembered(self, embedder: Embedder) -> RememberedQueries:
        space = EmbeddingSpace.of(embedder)
        if space not in self._queries:
            self._queries = {space: RememberedQueries(embedder)}  # vectors of another space are never compared
        return self._queries[space]

    def _vector_index(self, store, dimensions: int):
        kept = self._index
        if kept is None or kept[0] is not store or kept[1] != dimensions:
            kept = self._index = (store, dimensions, retrieval_index(self._container, dimensions))
        return kept[2]
