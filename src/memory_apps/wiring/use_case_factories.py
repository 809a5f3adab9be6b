"""The use cases a session start needs, as recipes over the adapter table: the container declares its factories
from them and the hook's wiring builds them from them, so the two cannot wire a use case differently (ADR 21)."""

from __future__ import annotations

from memory_apps.wiring.adapter_factories import ADAPTERS, Recipe
from memory_apps.wiring.embedding_setup import NO_EMBEDDER


def signal_weights(vector_weight: float, keyword_weight: float, prominence_weight: float):
    """The configured weights of the vector, keyword and prominence signals."""
    from memory_core.ranking.scoring import Weights

    return Weights(vector=vector_weight, keyword=keyword_weight, prominence=prominence_weight)


def retrieve_and_rank(store, clock, weights, ranking: str, embedder=None, vector_index=None,
                      embedder_problem: str = NO_EMBEDDER):
    """The retrieve-and-rank use case over the store (which is also the keyword and the reference index)."""
    from memory_core.usecases.retrieve import RetrieveAndRank

    return RetrieveAndRank(store=store, clock=clock, weights=weights, keyword_index=store, embedder=embedder,
                           vector_index=vector_index, embedder_problem=embedder_problem, ranking=ranking,
                           references=store)


def local_keyword_tiers():
    """The local extractive keyword tier alone: what a markdown import labels entries with."""
    from memory_apps.wiring.keyword_setup import build_keyword_tiers

    return build_keyword_tiers("local")


def knowledge_bank_import(knowledge_reader, store, clock, layout, local_keywords):
    """The markdown importer (the first session of a project, `import`, the background run); git history decides
    whose each bank file is (ADR 23)."""
    from memory_adapters.project.git_bank_authorship import GitBankAuthorship
    from memory_core.usecases.importing import ImportKnowledgeBank

    return ImportKnowledgeBank(reader=knowledge_reader, store=store, clock=clock, layout=layout,
                               keywords=local_keywords, authorship=GitBankAuthorship())


USE_CASES = {
    "weights": Recipe(signal_weights, values=("vector_weight", "keyword_weight", "prominence_weight"),
                      shared=False),
    "retrieve": Recipe(retrieve_and_rank, values=("ranking",), needs=("store", "clock", "weights"), shared=False),
    "local_keywords": Recipe(local_keyword_tiers),
    "importer": Recipe(knowledge_bank_import, needs=("knowledge_reader", "store", "clock", "layout", "local_keywords"),
                       shared=False),
}
"""The use cases (and what they take that is not an adapter), by the name of the container's provider."""

RECIPES = {**ADAPTERS, **USE_CASES}
"""Every recipe a wiring resolves by name."""
