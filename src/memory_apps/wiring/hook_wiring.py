"""The session-start hook's wiring: the container's recipes, resolved without dependency-injector.

The dependency-injector container is the composition root of every app. The hook alone, which answers within
one deadline at every session start, resolves the same recipes (`use_case_factories.RECIPES`, the table the
container's providers wrap) with the same values (`container_config.container_values`) through this class,
because importing the container costs about 130 ms (dependency-injector, pydantic) before any work is done: more
than a whole keyword-only session start (ADR 10, measured again in ADR 21). `tests/integration/test_hook_wiring.py`
checks that both rank and print the same.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from memory_apps.config import MemoryConfig
from memory_apps.wiring.container_config import HOOK_CONNECT_TIMEOUT_S, HOOK_STATEMENT_TIMEOUT_MS, container_values
from memory_apps.wiring.embedding_setup import NO_EMBEDDER
from memory_apps.wiring.use_case_factories import RECIPES


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
    """Implements SessionWiring: builds what a session start asks for from the recipes, lazily; a shared
    recipe once (as the container's Singleton), the others on every request (as its Factory)."""

    def __init__(self, settings: MemoryConfig, global_store: str, project_root: Optional[str] = None,
                 seconds_left: Optional[float] = None) -> None:
        self._values = container_values(settings, global_store, project_root=project_root, hook_path=True)
        if seconds_left is not None:  # a server gets a share of what is left of the session's deadline
            self._values["connect_timeout_s"] = min(HOOK_CONNECT_TIMEOUT_S, max(0.4 * seconds_left, 0.1))
            self._values["statement_timeout_ms"] = int(min(HOOK_STATEMENT_TIMEOUT_MS, max(600 * seconds_left, 100)))
        self.config = ConfigValues(self._values)
        self._shared: dict[str, Any] = {}

    def _make(self, name: str, **arguments: Any) -> Any:
        """The collaborator a recipe builds, with its configuration values and the recipes it needs."""
        if name in self._shared:
            return self._shared[name]
        recipe = RECIPES[name]
        made = recipe.build(**{key: self._values[key] for key in recipe.values},
                            **{need: self._make(need) for need in recipe.needs}, **arguments)
        if recipe.shared:
            self._shared[name] = made
        return made

    def store(self):
        """The SQLite store, opened with the hook's short busy timeout."""
        return self._make("store")

    def clock(self):
        """The system clock."""
        return self._make("clock")

    def context_source(self):
        """Feature files and git changes."""
        return self._make("context_source")

    def shared_work(self):
        """Leases and the background run, in the global store."""
        return self._make("shared_work")

    def embedder_builder(self):
        """The function that builds an embedding adapter from a provider name and model (from the table)."""
        from memory_apps.wiring.embedding_setup import embedders_from_table

        return embedders_from_table(self._values)

    def vector_index(self, dimensions: int, write_cache: bool = True):
        """The vector index over the store in one embedding space."""
        return self._make("vector_index", dimensions=dimensions, write_cache=write_cache)

    def retrieve(self, embedder=None, vector_index=None, embedder_problem: str = NO_EMBEDDER):
        """The retrieve-and-rank use case with a query embedder and an index (or why there is none)."""
        return self._make("retrieve", embedder=embedder, vector_index=vector_index, embedder_problem=embedder_problem)

    def importer(self):
        """The markdown importer (first session of a project only), with local keyword labels."""
        return self._make("importer")

    def session_start(self):
        """The session-start use case over this wiring."""
        from memory_apps.wiring.session_setup import build_session_start

        return build_session_start(self)
