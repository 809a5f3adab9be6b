"""The composition root of the writer, the MCP server, the CLI and the library: a dependency-injector container
with one provider per recipe of `recipes.RECIPES` (the table the session-start hook resolves too).

A shared recipe is a Singleton, the others Factories; a recipe's values come from `config`, what it needs from
the providers of those recipes, and its makers are those providers themselves (called when the recipe decides).
Tests override providers (`Container.embedder.override(...)`) instead of patching.
"""

from __future__ import annotations

from typing import Optional

from dependency_injector import containers, providers

from memory_apps.config import MemoryConfig
from memory_apps.wiring import adapter_functions
from memory_apps.wiring.recipes import RECIPES, Recipe
from memory_apps.wiring.values import container_values

# Every write shell (the writer, `write`, `import`, MemoryService and so the MCP server) imports this module
# before it validates an entry; the session-start hook never does. detect-secrets loads on the first scan (ADR 12).
adapter_functions.use_detect_secrets()


def _provider(name: str, recipe: Recipe, config: providers.Configuration,
              declared: dict[str, providers.Provider]) -> providers.Provider:
    missing = [n for n in recipe.needs + recipe.makers if n not in declared]
    if missing:
        raise TypeError(f"recipe {name!r} comes before {missing} in RECIPES")
    kind = providers.Singleton if recipe.shared else providers.Factory
    return kind(recipe.build, **{key: getattr(config, key) for key in recipe.values},
                **{need: declared[need] for need in recipe.needs},
                **{maker: declared[maker].provider for maker in recipe.makers})


class Container(containers.DeclarativeContainer):
    """Builds every collaborator the apps use, one provider per recipe (`container.store()`, ...)."""

    config = providers.Configuration()


def _declare() -> None:
    declared: dict[str, providers.Provider] = {}
    for name, recipe in RECIPES.items():
        declared[name] = _provider(name, recipe, Container.config, declared)
        setattr(Container, name, declared[name])


_declare()


def build_container(settings: MemoryConfig, global_store: str, fts5: bool = True,
                    project_root: Optional[str] = None, full_check: bool = False,
                    hook_path: bool = False, keep_models: bool = False) -> Container:
    """A container configured for one global store and one project's settings (`keep_models` for a host that
    serves many requests)."""
    container = Container()
    container.config.from_dict(container_values(settings, global_store, fts5, project_root, full_check, hook_path,
                                                keep_models))
    return container
