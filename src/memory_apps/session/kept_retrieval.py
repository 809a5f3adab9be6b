"""The searches of a long-running host (the library, the MCP server): the model, the vectors and the use case
are kept between searches rather than built for each."""

from __future__ import annotations

from typing import Any, Optional

from memory_core.embedding.remembered_queries import RememberedQueries
from memory_core.embedding.space import EmbeddingSpace
from memory_core.ports.embedder import Embedder
from memory_core.usecases.retrieve import RetrieveAndRank


class KeptRetrieval:
    """What a long-running host keeps between searches: the retrieve-and-rank use case with its query embedder
    (remembering recent queries) and one vector index over the store (keeping its matrix). The use case is
    rebuilt when the store changed, whoever committed (the pinned space may have changed with it); the index
    and the remembered queries survive that as long as the store and the space stay the same."""

    def __init__(self, container: Any) -> None:
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
        plan = self._container.embedding_plan(want_target=False)
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
            kept = self._index = (store, dimensions, self._container.vector_index(dimensions=dimensions))
        return kept[2]
