"""The composition root: one dependency-injector container that wires adapters into use cases."""

from __future__ import annotations

import os
import sys
from typing import Optional

from dependency_injector import containers, providers

from memory_adapters.detect_secrets_scanner import use_detect_secrets
from memory_adapters.git_context_source import GitProjectContextSource
from memory_adapters.markdown_audit_trail import MarkdownAuditTrail
from memory_adapters.markdown_knowledge_bank import MarkdownKnowledgeBankReader
from memory_adapters.git_project_layout import GitProjectLayout
from memory_adapters.sqlite_store import SqliteEntryStore
from memory_adapters.system_clock import SystemClock
from memory_apps.background import BackgroundWork
from memory_apps.config import MemoryConfig
from memory_apps.session_setup import build_session_start
from memory_apps.container_config import DB_FILENAME, container_values, default_global_store
from memory_apps.retrieval_setup import embedding_plan, retrieval_for, retrieval_index
from memory_apps.keyword_setup import build_keyword_tiers
from memory_apps.embedding_setup import embedder_builder
from memory_core.scoring import Weights
from memory_core.usecases.embed_pending import EmbedPending
from memory_core.usecases.importing import ImportKnowledgeBank
from memory_core.usecases.reconcile_audit import ReconcileAudit
from memory_core.usecases.remember import Remember
from memory_core.usecases.retrieve import RetrieveAndRank

__all__ = ["Container", "DB_FILENAME", "build_container", "default_global_store", "embedding_plan",
           "keep_snapshot", "open_store_recovering", "retrieval_for", "retrieval_index"]

# Every write shell (the writer, `write`, `import`, MemoryService and so the MCP server) imports this module
# before it validates an entry; the session-start hook never does. detect-secrets loads on the first scan (ADR 12).
use_detect_secrets()


def audit_trail_for(global_store: str):
    """Markdown audit trails by project root; a project directory that is gone leaves the global store only."""
    def build(project_root: Optional[str]) -> MarkdownAuditTrail:
        return MarkdownAuditTrail(global_store, project_root if project_root and os.path.isdir(project_root) else None)
    return build


class Container(containers.DeclarativeContainer):
    """Builds every collaborator the apps use; tests override providers instead of patching."""

    __self__ = providers.Self()
    config = providers.Configuration()

    clock = providers.Singleton(SystemClock)
    store = providers.Singleton(SqliteEntryStore, path=config.db_path, enable_fts5=config.fts5,
                                full_check=config.full_check, busy_timeout_ms=config.busy_timeout_ms,
                                busy_retries=config.busy_retries)
    knowledge_reader = providers.Singleton(MarkdownKnowledgeBankReader)
    context_source = providers.Singleton(GitProjectContextSource)
    embedder_builder = providers.Singleton(embedder_builder, config.model_cache, config.write_model_cache)
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
        ranking=config.ranking,
        references=store,
    )
    keyword_tiers = providers.Singleton(build_keyword_tiers, config.keyword_provider)
    audit_trail = providers.Singleton(MarkdownAuditTrail, global_store=config.global_store,
                                      project_root=config.project_root)
    reconcile = providers.Factory(ReconcileAudit, store=store, exclusive=audit_trail.provided.exclusive,
                                  audit_for=providers.Callable(audit_trail_for, config.global_store))
    remember = providers.Factory(Remember, store=store, clock=clock, keywords=keyword_tiers, reconcile=reconcile)
    embed_pending = providers.Factory(EmbedPending, store=store)
    local_keywords = providers.Singleton(build_keyword_tiers, "local")
    importer = providers.Factory(ImportKnowledgeBank, reader=knowledge_reader, store=store, clock=clock,
                                 layout=providers.Singleton(GitProjectLayout), keywords=local_keywords)
    shared_work = providers.Singleton(BackgroundWork, global_store=config.global_store)
    session_start = providers.Factory(build_session_start, __self__)


def build_container(settings: MemoryConfig, global_store: str, fts5: bool = True,
                    project_root: Optional[str] = None, full_check: bool = False,
                    hook_path: bool = False) -> Container:
    """A container configured for one global store and one project's settings."""
    container = Container()
    container.config.from_dict(container_values(settings, global_store, fts5, project_root, full_check, hook_path))
    return container


def open_store_recovering(container: Container, project_root: Optional[str], global_store: str,
                          auto_import: bool = True):
    """Open the store for writing. A corrupt file (or another program's) is moved aside, never deleted, and
    rebuilt: from the newest sound snapshot when there is one, then from the markdown audit trail, with the
    store's list of deleted entries applied so nothing deleted comes back."""
    from memory_adapters.markdown_tombstones import read_tombstones
    from memory_adapters.sqlite_health import move_aside
    from memory_adapters.sqlite_snapshots import restore_newest
    from memory_core.errors import DatabaseCorrupt

    rebuilt = False
    try:
        store = container.store()
    except DatabaseCorrupt as exc:
        db_path = container.config.db_path()
        moved = move_aside(db_path, exc)
        where = f"moved it to {moved}" if moved else "another process already moved it aside"
        restored = restore_newest(db_path) if moved else None
        again = f"; restored the snapshot {os.path.basename(restored)}" if restored else ""
        print(f"iflow-memory: {exc}; {where}{again}", file=sys.stderr)
        container.store.reset()
        store = container.store()
        rebuilt = True
    if rebuilt or store.count() == 0:
        tombstones = read_tombstones(global_store)
        if tombstones:
            store.apply_tombstones(tombstones)
    audit_root = container.config.project_root()
    store.queue_markdown(os.path.abspath(audit_root) if audit_root else None)
    report = container.reconcile().run()  # markdown a killed writer still owed
    for problem in report.problems[:1]:
        print(f"iflow-memory: {problem}", file=sys.stderr)
    root = os.path.abspath(project_root or os.getcwd())
    importer = container.importer()
    if auto_import and (rebuilt or not importer.imported(root)):
        report = importer.run(root, global_store)
        if report.new:
            print(f"iflow-memory: imported {report.new} entries from markdown", file=sys.stderr)
    return store


def keep_snapshot(container: Container) -> Optional[str]:
    """Take the periodic snapshot of the database when one is due (a failure only warns)."""
    import sqlite3

    from memory_adapters.sqlite_snapshots import take_snapshot

    try:
        return take_snapshot(container.config.db_path())
    except (OSError, sqlite3.Error) as exc:
        print(f"iflow-memory: snapshot not taken: {exc}", file=sys.stderr)
        return None
