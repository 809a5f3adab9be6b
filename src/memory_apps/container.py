"""The composition root: one dependency-injector container that wires adapters into use cases."""

from __future__ import annotations

import os
import sys
from typing import Optional

from dependency_injector import containers, providers

from memory_adapters.git_context_source import GitProjectContextSource
from memory_adapters.markdown_audit_trail import MarkdownAuditTrail
from memory_adapters.markdown_knowledge_bank import MarkdownKnowledgeBankReader
from memory_adapters.sqlite_store import SqliteEntryStore
from memory_adapters.system_clock import SystemClock
from memory_apps.config import MemoryConfig
from memory_apps.keyword_setup import build_keyword_tiers
from memory_apps.embedding_setup import EmbeddingPlan, build_embedder, plan_embedding
from memory_core.scoring import Weights
from memory_core.space import pinned_space
from memory_core.usecases.embed_pending import EmbedPending
from memory_core.usecases.importing import ImportKnowledgeBank
from memory_core.usecases.remember import Remember
from memory_core.usecases.retrieve import RetrieveAndRank

DEFAULT_GLOBAL_STORE = os.path.join("~", ".claude", "iflow", "memory")
DB_FILENAME = "memory.db"


def default_global_store() -> str:
    """`~/.claude/iflow/memory`, expanded."""
    return os.path.expanduser(DEFAULT_GLOBAL_STORE)


class Container(containers.DeclarativeContainer):
    """Builds every collaborator the apps use; tests override providers instead of patching."""

    config = providers.Configuration()

    clock = providers.Singleton(SystemClock)
    store = providers.Singleton(SqliteEntryStore, path=config.db_path, enable_fts5=config.fts5,
                                full_check=config.full_check, busy_timeout_ms=config.busy_timeout_ms,
                                busy_retries=config.busy_retries)
    knowledge_reader = providers.Singleton(MarkdownKnowledgeBankReader)
    context_source = providers.Singleton(GitProjectContextSource)
    embedder_builder = providers.Object(build_embedder)
    embedder = providers.Object(None)
    vector_index = providers.Object(None)
    embedder_problem = providers.Object("no embedding provider configured")

    weights = providers.Factory(
        Weights, vector=config.vector_weight, keyword=config.keyword_weight, prominence=config.prominence_weight
    )
    retrieve = providers.Factory(
        RetrieveAndRank,
        store=store,
        clock=clock,
        weights=weights,
        keyword_index=store,
        embedder=embedder,
        vector_index=vector_index,
        embedder_problem=embedder_problem,
    )
    keyword_tiers = providers.Singleton(build_keyword_tiers, config.keyword_provider)
    audit_trail = providers.Singleton(MarkdownAuditTrail, global_store=config.global_store,
                                      project_root=config.project_root)
    remember = providers.Factory(Remember, store=store, clock=clock, keywords=keyword_tiers, audit=audit_trail)
    embed_pending = providers.Factory(EmbedPending, store=store)
    local_keywords = providers.Singleton(build_keyword_tiers, "local")
    importer = providers.Factory(ImportKnowledgeBank, reader=knowledge_reader, store=store, clock=clock,
                                 keywords=local_keywords)


def build_container(settings: MemoryConfig, global_store: str, fts5: bool = True,
                    project_root: Optional[str] = None, full_check: bool = False,
                    hook_path: bool = False) -> Container:
    """A container configured for one global store and one project's settings."""
    container = Container()
    container.config.from_dict(
        {
            "db_path": os.path.join(global_store, DB_FILENAME),
            "global_store": global_store,
            "project_root": project_root,
            "fts5": fts5,
            "full_check": full_check,
            # The session-start hook cannot wait 5 s for a busy database: it degrades instead.
            "busy_timeout_ms": 400 if hook_path else 5000,
            "busy_retries": 1 if hook_path else 6,
            "vector_weight": settings.vector_weight,
            "keyword_weight": settings.keyword_weight,
            "prominence_weight": settings.prominence_weight,
            "embedding_provider": settings.embedding_provider,
            "embedding_model": settings.embedding_model,
            "keyword_provider": settings.keyword_provider,
        }
    )
    return container


def embedding_plan(container: Container, want_target: bool) -> EmbeddingPlan:
    """Resolve the configured provider against the space the database is pinned to."""
    return plan_embedding(
        container.config.embedding_provider() or "auto",
        container.config.embedding_model() or "",
        pinned_space(container.store()),
        container.embedder_builder(),
        want_target=want_target,
    )


def retrieval_index(container: Container, dimensions: int):
    """The numpy vector index over the store, with its flat cache file beside the database."""
    from memory_adapters.numpy_vector_index import NumpyVectorIndex

    return NumpyVectorIndex(container.store(), dimensions, cache_path=container.config.db_path() + ".vectors")


def retrieval_for(container: Container, plan: EmbeddingPlan) -> RetrieveAndRank:
    """The retrieve-and-rank use case with the plan's query embedder and a numpy index over its space."""
    index = retrieval_index(container, plan.query.dimensions) if plan.query is not None else None
    return container.retrieve(embedder=plan.query, vector_index=index,
                              embedder_problem=plan.problem or "no embedding provider configured")


def open_store_recovering(container: Container, project_root: Optional[str], global_store: str,
                          auto_import: bool = True):
    """Open the store for writing. A corrupt file is moved aside (never deleted); a new or empty database
    (first use, deleted, or just moved aside) is rebuilt from the markdown audit trail before any write."""
    from memory_adapters.sqlite_health import quarantine
    from memory_core.errors import DatabaseCorrupt

    try:
        store = container.store()
    except DatabaseCorrupt as exc:
        moved = quarantine(container.config.db_path())
        print(f"iflow-memory: {exc}; moved it to {moved}", file=sys.stderr)
        container.store.reset()
        store = container.store()
    root = os.path.abspath(project_root or os.getcwd())
    if auto_import and (store.count() == 0 or store.get_metadata(f"imported:{root}") is None):
        report = container.importer().run(root, global_store)
        store.set_metadata(f"imported:{root}", "imported")
        if report.new:
            print(f"iflow-memory: imported {report.new} entries from markdown", file=sys.stderr)
    return store
