"""The recipes resolved without dependency-injector: the session-start hook's wiring, and a store by name.

The hook answers within one deadline at every session start; importing the container costs about 130 ms
(dependency-injector, pydantic) before any work is done, more than a whole keyword-only session start (ADR 10,
ADR 24). So the hook resolves `recipes.RECIPES`, the table the container's providers are declared from, here.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, ClassVar, Optional

from memory_apps.config import MemoryConfig
from memory_apps.wiring.recipes import RECIPES
from memory_apps.wiring.values import HOOK_CONNECT_TIMEOUT_S, HOOK_STATEMENT_TIMEOUT_MS, container_values


class ConfigValues:
    """Read-only values with the container's `config.<key>()` call style."""

    def __init__(self, values: dict[str, Any]) -> None:
        self._values = values

    def __getattr__(self, name: str) -> Callable[[], Any]:
        try:
            value = self._values[name]
        except KeyError:
            raise AttributeError(name) from None
        return lambda: value


class RecipeWiring:
    """Builds what it is asked for (`wiring.store()`, `wiring.session_start()`) from the recipes, lazily: a
    shared recipe once (as the container's Singleton), the others on every request (as its Factory)."""

    overrides: ClassVar[dict[str, Any]] = {}
    """What stands in for a recipe's product in every wiring (a benchmark's stub embedder builder, say)."""

    def __init__(self, values: dict[str, Any]) -> None:
        self._values = dict(values)
        self.config = ConfigValues(self._values)
        self._shared: dict[str, Any] = {}

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name not in RECIPES:
            raise AttributeError(name)
        return functools.partial(self.make, name)

    def make(self, name: str, **arguments: Any) -> Any:
        """What the recipe `name` builds, with its values, the products it needs and its makers."""
        if name in self.overrides:
            return self.overrides[name]
        if name in self._shared and not arguments:
            return self._shared[name]
        recipe = RECIPES[name]
        made = recipe.build(**{key: self._values[key] for key in recipe.values},
                            **{need: self.make(need) for need in recipe.needs},
                            **{maker: functools.partial(self.make, maker) for maker in recipe.makers}, **arguments)
        if recipe.shared and not arguments:  # built with arguments of its own: this caller's alone
            self._shared[name] = made
        return made


def hook_wiring(settings: MemoryConfig, global_store: str, project_root: Optional[str] = None,
                seconds_left: Optional[float] = None) -> RecipeWiring:
    """The wiring of a session-start hook: short busy and connect timeouts, a server's share of what is left of
    the session's deadline (`seconds_left`)."""
    values = container_values(settings, global_store, project_root=project_root, hook_path=True)
    if seconds_left is not None:
        values["connect_timeout_s"] = min(HOOK_CONNECT_TIMEOUT_S, max(0.4 * seconds_left, 0.1))
        values["statement_timeout_ms"] = int(min(HOOK_STATEMENT_TIMEOUT_MS, max(600 * seconds_left, 100)))
    return RecipeWiring(values)


def plain_wiring(global_store: str, project_root: Optional[str] = None) -> RecipeWiring:
    """The recipes with the default settings, for what reads no setting (the clock, the bank's reader and
    layout, leases, the markdown audit trail) where no container is at hand: the markdown-only paths."""
    return RecipeWiring(container_values(MemoryConfig(), global_store, project_root=project_root))


def store_at(global_store: str, db_path: Optional[str] = None, database_url: Optional[str] = None):
    """The entry store in an SQLite file or on a PostgreSQL server, opened as every command opens one (for
    `migrate`, whose source and target are not the configured store)."""
    values = container_values(MemoryConfig(), global_store)
    values.update(db_path=db_path, database_url=database_url)
    return RecipeWiring(values).store()
