"""The composition root: one dependency-injector container that wires adapters into use cases.

Its providers wrap the recipes of `adapter_factories` and `use_case_factories`, the one table the hook's
wiring resolves too (ADR 21). A Selector picks the embedding adapter by provider name, another the keyword tiers
by `memory_keyword_provider`. Tests override providers (`container.embedder.override(...)`) instead of patching.
"""

from __future__ import annotations

import contextvars
import os
import sys
from typing import Optional

from dependency_injector import containers, providers

from memory_adapters.detect_secrets_scanner import use_detect_secrets
from memory_apps.wiring.adapter_factories import EMBEDDERS, Recipe, audit_trails, embedder_recipe
from memory_apps.config import MemoryConfig
from memory_apps.wiring.container_config import DB_FILENAME, container_values, default_global_store
from memory_apps.wiring.embedding_setup import Builder, kept_embedders
from memory_apps.wiring.keyword_setup import KEYWORD_CHAINS, build_keyword_tiers
from memory_apps.wiring.retrieval_setup import embedding_plan, retrieval_for, retrieval_index
from memory_apps.wiring.session_setup import build_session_start
from memory_apps.wiring.use_case_factories import RECIPES
from memory_core.ports.embedder import Embedder
from memory_core.usecases.embed_pending import EmbedPending
from memory_core.usecases.reconcile_audit import ReconcileAudit
from memory_core.usecases.remember import Remember

__all__ = ["Container", "DB_FILENAME", "build_container", "default_global_store", "embedding_plan",
           "keep_snapshot", "open_store_recovering", "prepare_write", "retrieval_for", "retrieval_index"]

# Every write shell (the writer, `write`, `import`, MemoryService and so the MCP server) imports this module
# before it validates an entry; the session-start hook never does. detect-secrets loads on the first scan (ADR 12).
use_detect_secrets()

_REQUESTED_EMBEDDER: contextvars.ContextVar[Optional[str]] = contextvars.ContextVar("requested_embedder",
                                                                                     default=None)


def _provider(recipe: Recipe, config: providers.Configuration, needs: dict) -> providers.Provider:
    if set(needs) != set(recipe.needs):
        raise TypeError(f"{recipe.build.__name__} needs {sorted(recipe.needs)}, not {sorted(needs)}")
    kind = providers.Singleton if recipe.shared else providers.Factory
    return kind(recipe.build, **{key: getattr(config, key) for key in recipe.values}, **needs)


def declare(name: str, config: providers.Configuration, **needs: providers.Provider) -> providers.Provider:
    """The provider of one recipe (a Singleton when shared, else a Factory) with the recipe's configuration
    values and the providers of exactly the recipes it needs."""
    return _provider(RECIPES[name], config, needs)


def requested_embedder() -> Optional[str]:
    """The provider name `embedders_by_name` is asking the embedder Selector for."""
    return _REQUESTED_EMBEDDER.get()


def embedders_by_name(embedder: providers.Provider) -> Builder:
    """A builder that asks the container's embedder Selector (or whatever overrides it) for one provider's
    adapter: the plan names the provider, the Selector imports and builds only that one."""
    def build(provider: str, model: str) -> Embedder:
        if not embedder.overridden:
            embedder_recipe(provider)  # ProviderUnavailable for a name no adapter answers to
        token = _REQUESTED_EMBEDDER.set(provider)
        try:
            return embedder(model=model)
        finally:
            _REQUESTED_EMBEDDER.reset(token)
    return build


def _embedder_alternatives(config: providers.Configuration) -> dict[str, providers.Provider]:
    return {name: _provider(recipe, config, {}) for name, recipe in EMBEDDERS.items()}


def _keyword_alternatives() -> dict[str, providers.Provider]:
    return {name: providers.Singleton(build_keyword_tiers, name) for name in KEYWORD_CHAINS}


class Container(containers.DeclarativeContainer):
    """Builds every collaborator the apps use; tests override providers instead of patching."""

    __self__ = providers.Self()
    config = providers.Configuration()

    clock = declare("clock", config)
    store = declare("store", config)
    knowledge_reader = declare("knowledge_reader", config)
    layout = declare("layout", config)
    context_source = declare("context_source", config)
    audit_trail = declare("audit_trail", config)
    shared_work = declare("shared_work", config)
    vector_index = declare("vector_index", config, store=store)

    embedder = providers.Selector(requested_embedder, **_embedder_alternatives(config))
    embedder_by_name = providers.Factory(embedders_by_name, embedder.provider)
    # One-shot processes build an embedder when asked; a long-running host keeps the last few it built.
    embedder_builder = providers.Selector(config.embedders, per_call=embedder_by_name,
                                          kept=providers.Singleton(kept_embedders, embedder_by_name))
    keyword_tiers = providers.Selector(config.keyword_provider, **_keyword_alternatives())
    local_keywords = declare("local_keywords", config)

    weights = declare("weights", config)
    retrieve = declare("retrieve", config, store=store, clock=clock, weights=weights)
    importer = declare("importer", config, knowledge_reader=knowledge_reader, store=store, clock=clock,
                       layout=layout, local_keywords=local_keywords)
    reconcile = providers.Factory(ReconcileAudit, store=store, exclusive=audit_trail.provided.exclusive,
                                  audit_for=providers.Callable(audit_trails, config.global_store))
    remember = providers.Factory(Remember, store=store, clock=clock, keywords=keyword_tiers, reconcile=reconcile)
    embed_pending = providers.Factory(EmbedPending, store=store)
    session_start = providers.Factory(build_session_start, __self__)


def build_container(settings: MemoryConfig, global_store: str, fts5: bool = True,
                    project_root: Optional[str] = None, full_check: bool = False,
                    hook_path: bool = False, keep_models: bool = False) -> Container:
    """A container configured for one global store and one project's settings (`keep_models` for a host that
    serves many requests)."""
    container = Container()
    container.config.from_dict(container_values(settings, global_store, fts5, project_root, full_check, hook_path,
                                                keep_models))
    return container


def open_store_recovering(container: Container, project_root: Optional[str], global_store: str,
                          auto_import: bool = True, reading: bool = False):
    """Open the store for writing. A corrupt file (or another program's) is moved aside, never deleted, and
    rebuilt: from the newest sound snapshot when there is one, then from the markdown audit trail, with the
    store's list of deleted entries applied so nothing deleted comes back. With `auto_import` the project's
    knowledge bank is imported when it was not yet; with `reading` only a rebuilt database is (a read writes no
    import marker, and leaves the store's permissions to the next write: `prepare_write`)."""
    from memory_adapters.markdown.tombstones import read_tombstones
    from memory_adapters.store.sqlite.health import move_aside
    from memory_adapters.store.sqlite.snapshots import restore_newest
    from memory_adapters.store.privacy import make_store_private
    from memory_core.errors import DatabaseCorrupt

    if not reading:
        notice = make_store_private(global_store)  # before it receives anything new
        if notice:
            print(f"iflow-memory: {notice}", file=sys.stderr)
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
    new = 0
    if reading:
        # A read rebuilds an empty or rebuilt database from the store's own markdown, never the project's bank.
        new = _restore_store_markdown(container, global_store) if rebuilt or store.count() == 0 else 0
    elif auto_import and (rebuilt or not importer.imported(root)):
        new = importer.run(root, global_store).new
    if new:
        print(f"iflow-memory: imported {new} {'entry' if new == 1 else 'entries'} from markdown", file=sys.stderr)
    return store


def _restore_store_markdown(container: Container, global_store: str) -> int:
    """A read's recovery of an empty or rebuilt database: the global store's own markdown (every entry the
    user's tools stored is there), never the project's bank, and no project recorded as imported. An entry
    that does not validate is left out here; `iflow-memory import` names it. Returns how many were new."""
    from pydantic import ValidationError

    from memory_core.ranking.legacy import deduplicate

    items = []
    for entry in deduplicate(container.knowledge_reader().read(global_store, "global")):
        try:
            items.append((entry.to_draft(None), entry.last_observed))
        except ValidationError:
            continue
    store, now, new = container.store(), container.clock().now(), 0
    for start in range(0, len(items), 100):  # committed batches, as an import commits them
        new += sum(1 for outcome in store.import_entries(items[start:start + 100], now) if outcome.status == "new")
    return new


def keep_snapshot(container: Container) -> Optional[str]:
    """Take the periodic snapshot of the database when one is due (a failure only warns)."""
    import sqlite3

    from memory_adapters.store.sqlite.snapshots import take_snapshot

    if container.config.database_url():
        return None  # a server keeps its own backups (pg_dump, replication): not this program's job
    try:
        return take_snapshot(container.config.db_path())
    except (OSError, sqlite3.Error) as exc:
        print(f"iflow-memory: snapshot not taken: {exc}", file=sys.stderr)
        return None


def prepare_write(container: Container, project_root: str, global_store: str) -> None:
    """Before a write through a store opened for reading: make the store private, and when the database lost
    commits its markdown recorded (a deleted `-wal`), import the markdown again first, so this write neither
    hides the loss (its number would pass the watermark) nor comes before the entries it lost."""
    from memory_adapters.store.privacy import make_store_private
    from memory_core.ports.audit_watermark import AuditWatermark

    notice = make_store_private(global_store)
    if notice:
        print(f"iflow-memory: {notice}", file=sys.stderr)
    store = container.store()
    if isinstance(store, AuditWatermark) and store.markdown_ahead():
        new = container.importer().run(os.path.abspath(project_root), global_store).new
        if new:
            print(f"iflow-memory: imported {new} {'entry' if new == 1 else 'entries'} from markdown", file=sys.stderr)
