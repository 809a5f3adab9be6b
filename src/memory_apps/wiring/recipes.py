"""The one description of what is built from what: every collaborator the apps use, as a recipe (ADR 24).

The dependency-injector container declares one provider per recipe (`container.py`); the session-start hook,
which cannot pay dependency-injector's import, resolves the same recipes (`resolver.py`). A recipe names the
configuration values its function takes (keys of `values.container_values`), the recipes whose product it takes
(`needs`), and the recipes it takes as functions that build on demand (`makers`, called with what is only known
then: a vector index's dimensions, a retrieval's query embedder).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from memory_apps.wiring import adapters, lifecycle
from memory_core.embedding.plan import NO_EMBEDDER, EmbeddingPlan, plan_embedding

KEPT_EMBEDDERS = 4


@dataclass(frozen=True)
class Recipe:
    """How to build one collaborator, and whether a wiring builds it once (`shared`) or on every request."""

    build: Callable[..., Any]
    values: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    makers: tuple[str, ...] = ()
    shared: bool = True


def embedder_builder(embedder: Callable[..., Any], embedders: str) -> Callable[[str, str], Any]:
    """The function that builds an embedding adapter from a provider name and a model; a long-running host
    (`embedders` "kept") keeps the last few it built, so a model loads once."""
    def build(provider: str, model: str):
        return embedder(provider=provider, model=model)
    if embedders != "kept":
        return build
    import functools

    return functools.lru_cache(maxsize=KEPT_EMBEDDERS)(build)


def embedding_plan(store, embedder_builder, embedding_provider: str, embedding_model: str,
                   want_target: bool = True) -> EmbeddingPlan:
    """The configured provider resolved against the space the database is pinned to."""
    from memory_core.embedding.space import pinned_space

    return plan_embedding(embedding_provider or "auto", embedding_model or "", pinned_space(store), embedder_builder,
                          want_target=want_target, auto_provider=adapters.auto_provider)


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


def retrieval(embedding_plan, vector_index, retrieve, write_cache: bool = True):
    """Retrieve-and-rank with the pinned space's query embedder and a vector index over that space (or why
    there is none); a session start reads the vector cache without writing it (`write_cache` False)."""
    plan = embedding_plan(want_target=False)
    index = vector_index(dimensions=plan.query.dimensions, write_cache=write_cache) if plan.query else None
    return retrieve(embedder=plan.query, vector_index=index, embedder_problem=plan.query_problem)


def knowledge_bank_import(knowledge_reader, store, clock, layout, local_keywords, authorship, tree_anchoring=None):
    """The markdown importer (the first session of a project, `import`, the background run)."""
    from memory_core.usecases.importing import ImportKnowledgeBank

    return ImportKnowledgeBank(reader=knowledge_reader, store=store, clock=clock, layout=layout,
                               keywords=local_keywords, authorship=authorship, anchoring=tree_anchoring)


def reconcile_audit(store, audit_trail, global_store: str):
    """Writes the markdown the store's outbox still owes, to the audit trail of each entry's project."""
    from memory_core.usecases.reconcile_audit import ReconcileAudit

    return ReconcileAudit(store=store, exclusive=audit_trail.exclusive, audit_for=adapters.audit_trails(global_store))


def near_duplicates(store, embedding_plan, vector_index, project_root=None):
    """Finds the stored learnings a draft repeats in other words (ADR 26), among those the project sees: by the
    pinned space's embedder and vector index, or by the keyword-only rule when there are none."""
    from memory_apps.wiring.adapter_functions import project_scopes
    from memory_core.usecases.near_duplicates import FindNearDuplicates

    plan = embedding_plan(want_target=False)
    index = vector_index(dimensions=plan.query.dimensions) if plan.query else None
    return FindNearDuplicates(store=store, embedder=plan.query, vector_index=index, keyword_index=store,
                              scopes=project_scopes(project_root) if project_root else None)


def remember(store, clock, keyword_tiers, reconcile, near_duplicates, tree_anchoring=None, project_root=None):
    """The remember use case: validate, merge, label with keywords, report near-duplicates, anchor in the project
    it runs in, write the markdown."""
    import functools

    from memory_core.usecases.remember import Remember

    anchoring = functools.partial(tree_anchoring, project_root) if tree_anchoring and project_root else None
    return Remember(store=store, clock=clock, keywords=keyword_tiers, reconcile=reconcile, anchoring=anchoring,
                    neighbours=near_duplicates)


def embed_pending(store, embedder):
    """Embeds the entries without a vector (or re-embeds into a new space) with `embedder`."""
    from memory_core.usecases.embed_pending import EmbedPending

    return EmbedPending(store=store, embedder=embedder)


def session_start(store, context_source, shared_work, clock, retrieval, importer, anchor_checks=None):
    """The session-start use case; its retrieval reads the vector cache only (the background run writes it)."""
    from memory_core.usecases.session_start import SessionStart

    return SessionStart(store=store, retrieve=retrieval(write_cache=False), importer=importer,
                        context_source=context_source, shared_work=shared_work, clock=clock,
                        anchor_checks=anchor_checks)


def check_anchors(code_files, anchor_cache):
    """The check before use: entries' anchors against the project's tree, through the per-project cache."""
    from memory_core.usecases.check_anchors import CheckAnchors

    return CheckAnchors(files=code_files, cache=anchor_cache)


def anchor_checks(global_store: str):
    """`project root → CheckAnchors` for hosts that serve several projects (session start, hooks, the warm
    process, the MCP server and library): the project comes with each call, not with the wiring. Nothing is
    imported until a selection holds anchored entries."""
    cache = []

    def check_for(project_root: str):
        from memory_adapters.project.git_code_files import GitCodeFiles
        from memory_core.usecases.check_anchors import CheckAnchors

        if not cache:
            cache.append(adapters.json_anchor_cache(global_store))
        return CheckAnchors(files=GitCodeFiles(project_root), cache=cache[0])
    return check_for


_STORE_VALUES = ("db_path", "database_url", "global_store", "fts5", "full_check", "busy_timeout_ms", "busy_retries",
                 "connect_timeout_s", "statement_timeout_ms")

RECIPES: dict[str, Recipe] = {  # each after the recipes it needs: the container declares them in this order
    "clock": Recipe(adapters.system_clock),
    "store": Recipe(adapters.entry_store, values=_STORE_VALUES),
    "knowledge_reader": Recipe(adapters.markdown_knowledge_reader),
    "layout": Recipe(adapters.git_project_layout),
    "authorship": Recipe(adapters.git_bank_authorship, shared=False),
    "context_source": Recipe(adapters.git_context_source),
    "audit_trail": Recipe(adapters.markdown_audit_trail, values=("global_store", "project_root")),
    "shared_work": Recipe(adapters.background_work, values=("global_store",)),
    "session_ledger": Recipe(adapters.session_ledger, values=("global_store",), needs=("clock",)),
    "injection_journal": Recipe(adapters.injection_journal, values=("global_store",), needs=("clock",)),
    "vector_index": Recipe(adapters.vector_index, values=("db_path", "database_url"), needs=("store",), shared=False),
    "embedder": Recipe(adapters.embedder, values=("model_cache", "write_model_cache"), shared=False),
    "embedder_builder": Recipe(embedder_builder, values=("embedders",), makers=("embedder",)),
    "embedding_plan": Recipe(embedding_plan, values=("embedding_provider", "embedding_model"),
                             needs=("store", "embedder_builder"), shared=False),
    "keyword_tiers": Recipe(adapters.keyword_tiers, values=("keyword_provider",)),
    "local_keywords": Recipe(adapters.local_keyword_tiers),
    "weights": Recipe(signal_weights, values=("vector_weight", "keyword_weight", "prominence_weight"), shared=False),
    "retrieve": Recipe(retrieve_and_rank, values=("ranking",), needs=("store", "clock", "weights"), shared=False),
    "retrieval": Recipe(retrieval, makers=("embedding_plan", "vector_index", "retrieve"), shared=False),
    "tree_anchoring": Recipe(adapters.tree_anchoring, shared=False),
    "importer": Recipe(knowledge_bank_import, needs=("knowledge_reader", "store", "clock", "layout", "local_keywords",
                                                     "authorship", "tree_anchoring"), shared=False),
    "reconcile": Recipe(reconcile_audit, values=("global_store",), needs=("store", "audit_trail"), shared=False),
    "near_duplicates": Recipe(near_duplicates, values=("project_root",), needs=("store",),
                              makers=("embedding_plan", "vector_index"), shared=False),
    "remember": Recipe(remember, values=("project_root",), needs=("store", "clock", "keyword_tiers", "reconcile",
                                                                  "near_duplicates", "tree_anchoring"), shared=False),
    "embed_pending": Recipe(embed_pending, needs=("store",), shared=False),
    "code_files": Recipe(adapters.git_code_files, values=("project_root",), shared=False),
    "anchor_cache": Recipe(adapters.json_anchor_cache, values=("global_store",)),
    "check_anchors": Recipe(check_anchors, needs=("code_files", "anchor_cache"), shared=False),
    "anchor_checks": Recipe(anchor_checks, values=("global_store",)),
    "session_start": Recipe(session_start, needs=("store", "context_source", "shared_work", "clock", "anchor_checks"),
                            makers=("retrieval", "importer"), shared=False),
    "retire": Recipe(lifecycle.retire, needs=("store", "clock", "reconcile"), shared=False),
    "restore": Recipe(lifecycle.restore, needs=("store", "clock", "reconcile"), shared=False),
    "supersede": Recipe(lifecycle.supersede, needs=("store", "clock", "remember", "reconcile"), shared=False),
    "confirm": Recipe(lifecycle.confirm, values=("project_root",),
                      needs=("store", "clock", "reconcile", "code_files", "layout"), shared=False),
    "edit": Recipe(lifecycle.edit, values=("project_root",),
                   needs=("store", "clock", "reconcile", "layout", "tree_anchoring"), shared=False),
    "review": Recipe(lifecycle.review, values=("project_root",), needs=("store", "check_anchors", "layout"),
                     shared=False),
}
"""Every collaborator the apps ask a wiring for, by name (`container.store()`, `wiring.session_start()`)."""
