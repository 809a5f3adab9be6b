"""The one table of adapter factories: the container's providers wrap these recipes, the hook's wiring calls them.

Each factory is a plain function that imports its adapter when called, so a process pays only for the adapters
it builds (a session start never imports a cloud SDK it does not use). A `Recipe` names the configuration values
a factory takes (keyword arguments of the same names, from `container_config.container_values`) and the other
recipes it takes; nothing else in `memory_apps` constructs an adapter (ADR 21).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Optional

from memory_core.errors import ProviderUnavailable


@dataclass(frozen=True)
class Recipe:
    """How to build one collaborator: the function, the configuration values it takes by name, the recipes it
    takes by name, and whether a wiring builds it once (`shared`, a Singleton) or on every request."""

    build: Callable[..., Any]
    values: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    shared: bool = True


def system_clock():
    """The wall clock."""
    from memory_adapters.system_clock import SystemClock

    return SystemClock()


def sqlite_store(db_path: str, fts5: bool, full_check: bool, busy_timeout_ms: int, busy_retries: int):
    """The SQLite entry store (also the keyword index and the reference index)."""
    from memory_adapters.store.sqlite.store import SqliteEntryStore

    return SqliteEntryStore(path=db_path, enable_fts5=fts5, full_check=full_check, busy_timeout_ms=busy_timeout_ms,
                            busy_retries=busy_retries)


def postgres_store(database_url: str, global_store: str, fts5: bool, connect_timeout_s: float,
                   statement_timeout_ms: int):
    """The PostgreSQL entry store (keyword, reference and candidate source too), replaying the markdown this
    machine's global store owes (the store's `machine-id`); StorageError, naming the URL with its password masked,
    when the URL is not a PostgreSQL one or the server does not answer in time."""
    from memory_adapters.store.machine_identity import machine_id

    from memory_apps.wiring.database_url import DatabaseUrlError, check_database_url
    from memory_core.errors import StorageError

    try:
        check_database_url(database_url)
    except DatabaseUrlError as exc:
        raise StorageError(str(exc)) from None
    from memory_adapters.store.postgres.store import PostgresEntryStore

    return PostgresEntryStore(database_url, connect_timeout=connect_timeout_s, keyword_search=fts5,
                              statement_timeout_ms=statement_timeout_ms,
                              origin=machine_id(global_store))


def entry_store(db_path: str, database_url: Optional[str], global_store: str, fts5: bool, full_check: bool,
                busy_timeout_ms: int, busy_retries: int, connect_timeout_s: float, statement_timeout_ms: int):
    """The entry store: on the PostgreSQL server when a database URL is configured, else the SQLite file."""
    if database_url:
        return postgres_store(database_url, global_store, fts5, connect_timeout_s, statement_timeout_ms)
    return sqlite_store(db_path, fts5, full_check, busy_timeout_ms, busy_retries)


def git_context_source():
    """Feature files and git changes of a project."""
    from memory_adapters.project.git_context_source import GitProjectContextSource

    return GitProjectContextSource()


def markdown_knowledge_reader(warn_unknown: bool = True):
    """The knowledge-bank markdown reader (quiet about unknown headers when `warn_unknown` is False)."""
    from memory_adapters.markdown.knowledge_bank import MarkdownKnowledgeBankReader

    return MarkdownKnowledgeBankReader(warn_unknown=warn_unknown)


def git_project_layout():
    """Where a project keeps its bank, and which project it is (its repository, else its path)."""
    from memory_adapters.project.git_project_layout import GitProjectLayout

    return GitProjectLayout()


def markdown_audit_trail(global_store: str, project_root: Optional[str]):
    """The markdown copies of entries: the global store's, and the project's when it has a root."""
    from memory_adapters.markdown.audit_trail import MarkdownAuditTrail

    return MarkdownAuditTrail(global_store, project_root)


def audit_trails(global_store: str) -> Callable[[Optional[str]], Any]:
    """Markdown audit trails by project root; a project directory that is gone leaves the global store only."""
    def build(project_root: Optional[str]):
        return markdown_audit_trail(global_store, project_root if project_root and os.path.isdir(project_root)
                                    else None)
    return build


def numpy_vector_index(store, db_path: str, dimensions: int, write_cache: bool = True):
    """The numpy vector index over the store, with its flat cache file beside the database (read-only unless
    `write_cache`: session starts only read it)."""
    from memory_adapters.vectors.numpy_vector_index import NumpyVectorIndex

    return NumpyVectorIndex(store, dimensions, cache_path=db_path + ".vectors", write_cache=write_cache)


VECTOR_CANDIDATES = 200
"""How many nearest vectors the PostgreSQL server names per query (from its HNSW index)."""


def vector_index(store, db_path: str, database_url: Optional[str], dimensions: int, write_cache: bool = True):
    """The vector index over the store: pgvector's nearest candidates on a server, else numpy over every vector."""
    if database_url:
        from memory_adapters.vectors.postgres_vector_index import PostgresVectorIndex

        return PostgresVectorIndex(store, dimensions, candidates=VECTOR_CANDIDATES)
    return numpy_vector_index(store, db_path, dimensions, write_cache)


def file_leases(global_store: str):
    """Leases on shared tasks, held as locked files in the global store."""
    from memory_adapters.shared_work.file_leases import FileLeases

    return FileLeases(global_store)


def background_work(global_store: str):
    """Leases and the detached background run, in the global store."""
    from memory_adapters.shared_work.background_work import BackgroundWork

    return BackgroundWork(global_store)


def local_embedder(model: str, model_cache: Optional[str], write_model_cache: bool):
    """The bundled model, or `model` as a directory holding model.onnx. `model_cache` keeps its optimised copy
    (built only when `write_model_cache`: the background run and the write paths build it)."""
    from memory_adapters.embedders.local_embedder import MODEL_NAME, LocalOnnxEmbedder
    from memory_apps.wiring.container_config import MODEL_CACHE_LEVELS

    cache = {"cache_dir": model_cache, "write_model_cache": write_model_cache,
             "cache_private_levels": MODEL_CACHE_LEVELS}
    path = os.path.expanduser(model) if model else ""
    if path and os.path.isdir(path):
        return LocalOnnxEmbedder(model_dir=path, **cache)
    if path and (os.sep in path or path.startswith(".")):
        raise ProviderUnavailable(f"local model directory {path} not found")
    if model and model != MODEL_NAME:
        raise ProviderUnavailable(f"unknown local model {model!r}: give a directory holding model.onnx")
    return LocalOnnxEmbedder(**cache)


def gemini_embedder(model: str):
    """Gemini embeddings (`model` '' is the default model)."""
    from memory_adapters.embedders.gemini_embedder import DEFAULT_MODEL, GeminiEmbedder

    return GeminiEmbedder(model=model or DEFAULT_MODEL)


def voyage_embedder(model: str):
    """Voyage embeddings (`model` '' is the default model)."""
    from memory_adapters.embedders.voyage_embedder import DEFAULT_MODEL, VoyageEmbedder

    return VoyageEmbedder(model=model or DEFAULT_MODEL)


def openai_embedder(model: str):
    """OpenAI embeddings (`model` '' is the default model)."""
    from memory_adapters.embedders.openai_embedder import DEFAULT_MODEL, OpenAIEmbedder

    return OpenAIEmbedder(model=model or DEFAULT_MODEL)


def ollama_embedder(model: str):
    """Embeddings from a local Ollama server (`model` '' is the default model)."""
    from memory_adapters.embedders.ollama_embedder import DEFAULT_MODEL, OllamaEmbedder

    return OllamaEmbedder(model=model or DEFAULT_MODEL)


def haiku_keywords():
    """Keyword labels from Claude Haiku; raises KeywordGenerationError without a key or SDK."""
    from memory_adapters.keywords.haiku_keyword_generator import HaikuKeywordGenerator

    return HaikuKeywordGenerator()


def ollama_keywords():
    """Keyword labels from a local Ollama server; raises KeywordGenerationError when it cannot start."""
    from memory_adapters.keywords.ollama_keyword_generator import OllamaKeywordGenerator

    return OllamaKeywordGenerator()


def extractive_keywords():
    """Keyword labels picked from the entry's own words, in process."""
    from memory_adapters.keywords.extractive_keyword_generator import LocalExtractiveKeywordGenerator

    return LocalExtractiveKeywordGenerator()


ADAPTERS = {
    "clock": Recipe(system_clock),
    "store": Recipe(entry_store, values=("db_path", "database_url", "global_store", "fts5", "full_check",
                                         "busy_timeout_ms", "busy_retries", "connect_timeout_s",
                                         "statement_timeout_ms")),
    "context_source": Recipe(git_context_source),
    "knowledge_reader": Recipe(markdown_knowledge_reader),
    "layout": Recipe(git_project_layout),
    "audit_trail": Recipe(markdown_audit_trail, values=("global_store", "project_root")),
    "shared_work": Recipe(background_work, values=("global_store",)),
    "vector_index": Recipe(vector_index, values=("db_path", "database_url"), needs=("store",), shared=False),
}
"""The adapters every wiring builds, by the name of the container's provider."""

EMBEDDERS = {
    "local": Recipe(local_embedder, values=("model_cache", "write_model_cache"), shared=False),
    "gemini": Recipe(gemini_embedder, shared=False),
    "voyage": Recipe(voyage_embedder, shared=False),
    "openai": Recipe(openai_embedder, shared=False),
    "ollama": Recipe(ollama_embedder, shared=False),
}
"""The embedding adapters by provider name (`memory_embedding_provider`); each is called with `model=`."""


def embedder_recipe(provider: str) -> Recipe:
    """The recipe of one embedding provider; ProviderUnavailable for a name no adapter answers to."""
    try:
        return EMBEDDERS[provider]
    except KeyError:
        raise ProviderUnavailable(f"unknown embedding provider {provider!r}") from None
