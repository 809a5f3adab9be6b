"""The session-start hook's wiring: the container's providers for the read path, built by hand.

The dependency-injector container stays the composition root of every app. The hook alone, which runs in
a 3-second budget at every session start, gets the same adapters with the same values from this class,
because importing dependency-injector costs about 80 ms (asyncio, yaml and starlette probes) before any
work is done (ADR 10). `tests/integration/test_hook_wiring.py` keeps the two in step.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from memory_apps.config import MemoryConfig
from memory_apps.container_config import container_values


class ConfigValues:
    """Read-only values with the container's `config.<key>()` call style."""

    def __init__(self, values: dict[str, Any]) -> None:
        self._values = dict(values)

    def __getattr__(self, name: str) -> Callable[[], Any]:
        try:
            value = self._values[name]
        except KeyError:
            raise AttributeError(name) from None
        return lambda: value


class HookWiring:
    """Builds, lazily and once, the collaborators `semantic_injection` asks its container for."""

    def __init__(self, settings: MemoryConfig, global_store: str, project_root: Optional[str] = None) -> None:
        self.config = ConfigValues(container_values(settings, global_store, project_root=project_root,
                                                    hook_path=True))
        self._built: dict[str, Any] = {}

    def _once(self, name: str, build: Callable[[], Any]) -> Any:
        if name not in self._built:
            self._built[name] = build()
        return self._built[name]

    def store(self):
        """The SQLite store, opened with the hook's short busy timeout."""
        from memory_adapters.sqlite_store import SqliteEntryStore

        config = self.config
        return self._once("store", lambda: SqliteEntryStore(
            path=config.db_path(), enable_fts5=config.fts5(), full_check=config.full_check(),
            busy_timeout_ms=config.busy_timeout_ms(), busy_retries=config.busy_retries()))

    def clock(self):
        """The system clock."""
        from memory_adapters.system_clock import SystemClock

        return self._once("clock", SystemClock)

    def context_source(self):
        """Feature files and git changes."""
        from memory_adapters.git_context_source import GitProjectContextSource

        return self._once("context_source", GitProjectContextSource)

    def embedder_builder(self):
        """The function that builds an embedding adapter from a provider name and model."""
        from memory_apps.embedding_setup import embedder_builder

        config = self.config
        return self._once("embedder_builder", lambda: embedder_builder(config.model_cache(),
                                                                        config.write_model_cache()))

    def weights(self):
        """The configured signal weights."""
        from memory_core.scoring import Weights

        config = self.config
        return Weights(vector=config.vector_weight(), keyword=config.keyword_weight(),
                       prominence=config.prominence_weight())

    def retrieve(self, embedder=None, vector_index=None, embedder_problem: str = "no embedding provider configured"):
        """The retrieve-and-rank use case over the store (which is also the keyword index)."""
        from memory_core.usecases.retrieve import RetrieveAndRank

        return RetrieveAndRank(store=self.store(), clock=self.clock(), weights=self.weights(),
                               keyword_index=self.store(), embedder=embedder, vector_index=vector_index,
                               embedder_problem=embedder_problem, ranking=self.config.ranking(),
                               references=self.store())

    def embed_pending(self, **options: Any):
        """The embed-pending use case over the store; options as for `EmbedPending`."""
        from memory_core.usecases.embed_pending import EmbedPending

        return EmbedPending(store=self.store(), **options)

    def shared_work(self):
        """Leases and the background run, in the global store."""
        from memory_apps.background import BackgroundWork

        config = self.config
        return self._once("shared_work", lambda: BackgroundWork(config.global_store()))

    def session_start(self):
        """The session-start use case over this wiring."""
        from memory_apps.session_setup import build_session_start

        return build_session_start(self)

    def importer(self):
        """The markdown importer (first session of a project only), with local keyword labels."""
        from memory_adapters.git_project_layout import GitProjectLayout
        from memory_adapters.markdown_knowledge_bank import MarkdownKnowledgeBankReader
        from memory_apps.keyword_setup import build_keyword_tiers
        from memory_core.usecases.importing import ImportKnowledgeBank

        local_keywords = self._once("local_keywords", lambda: build_keyword_tiers("local"))
        return ImportKnowledgeBank(reader=MarkdownKnowledgeBankReader(), store=self.store(), clock=self.clock(),
                                   layout=GitProjectLayout(), keywords=local_keywords)
