"""The adapter factories the recipes name: each imports its adapter when called, so a process pays only for the
adapters it builds (a session start never imports a cloud SDK it does not use)."""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, Optional

from memory_core.errors import KeywordGenerationError, ProviderUnavailable

VECTOR_CANDIDATES = 200
"""How many nearest vectors the PostgreSQL server names per query (from its HNSW index)."""


def system_clock():
    """The wall clock."""
    from memory_adapters.system_clock import SystemClock

    return SystemClock()


def entry_store(db_path: Optional[str], database_url: Optional[str], global_store: str, fts5: bool,
                full_check: bool, busy_timeout_ms: int, busy_retries: int, connect_timeout_s: float,
                statement_timeout_ms: int):
    """The entry store (also the keyword, reference and candidate index): on the PostgreSQL server when a database
    URL is configured, replaying the markdown this machine's global store owes (its `machine-id`), else the
    SQLite file. StorageError, naming the URL with its password masked, for a URL that is not a PostgreSQL one."""
    if not database_url:
        from memory_adapters.store.sqlite.store import SqliteEntryStore

        return SqliteEntryStore(path=db_path, enable_fts5=fts5, full_check=full_check,
                                busy_timeout_ms=busy_timeout_ms, busy_retries=busy_retries)
    from memory_apps.database_url import DatabaseUrlError, check_database_url
    from memory_core.errors import StorageError

    try:
        check_database_url(database_url)
    except DatabaseUrlError as exc:
        raise StorageError(str(exc)) from None
    from memory_adapters.store.machine_identity import machine_id
    from memory_adapters.store.postgres.store import PostgresEntryStore

    return PostgresEntryStore(database_url, connect_timeout=connect_timeout_s, keyword_search=fts5,
                              statement_timeout_ms=statement_timeout_ms, origin=machine_id(global_store))


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


def git_bank_authorship():
    """Whose each bank file is, from git history (ADR 23)."""
    from memory_adapters.project.git_bank_authorship import GitBankAuthorship

    return GitBankAuthorship()


def git_code_files(project_root: Optional[str]):
    """The project's working tree as an anchor check reads it (git says where a vanished file went)."""
    from memory_adapters.project.git_code_files import GitCodeFiles

    return GitCodeFiles(project_root or os.getcwd())


def tree_anchoring():
    """Anchors references in a project's working tree today (writers and the import, ADR 26)."""
    from memory_adapters.project.tree_anchoring import GitTreeAnchoring

    return GitTreeAnchoring()


def json_anchor_cache(global_store: str):
    """What each project's cited files held when last read, by file identity (`<global store>/anchors/`)."""
    from memory_adapters.project.json_anchor_cache import JsonAnchorCache

    return JsonAnchorCache(os.path.join(global_store, "anchors"))


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


def vector_index(store, db_path: str, database_url: Optional[str], dimensions: int, write_cache: bool = True):
    """The vector index over the store: pgvector's nearest candidates on a server, else numpy over every vector
    with its flat cache file beside the database (read-only unless `write_cache`: session starts only read it)."""
    if database_url:
        from memory_adapters.vectors.postgres_vector_index import PostgresVectorIndex

        return PostgresVectorIndex(store, dimensions, candidates=VECTOR_CANDIDATES)
    from memory_adapters.vectors.numpy_vector_index import NumpyVectorIndex

    return NumpyVectorIndex(store, dimensions, cache_path=db_path + ".vectors", write_cache=write_cache)


def background_work(global_store: str):
    """Leases and the detached background run, in the global store."""
    from memory_adapters.shared_work.background_work import BackgroundWork

    return BackgroundWork(global_store)


def session_ledger(global_store: str, clock):
    """What each agent session was shown by the hooks, one private file per session in the global store."""
    from memory_adapters.shared_work.file_session_ledger import FileSessionLedger

    return FileSessionLedger(global_store, clock)


def injection_journal(global_store: str, clock):
    """What each hook injected and why (the viewer's Sessions page), one private file per record in the global
    store."""
    from memory_adapters.shared_work.file_injection_journal import FileInjectionJournal

    return FileInjectionJournal(global_store, clock)


def embedder(provider: str, model: str, model_cache: Optional[str], write_model_cache: bool):
    """The embedding adapter of a provider name (`model` '' is its default); ProviderUnavailable for a name no
    adapter answers to. The local model keeps its optimised copy in `model_cache` (built only when
    `write_model_cache`: the background run and the write paths build it)."""
    if provider == "local":
        return _local_embedder(model, model_cache, write_model_cache)
    if provider == "gemini":
        from memory_adapters.embedders.gemini_embedder import DEFAULT_MODEL, GeminiEmbedder as Adapter
    elif provider == "voyage":
        from memory_adapters.embedders.voyage_embedder import DEFAULT_MODEL, VoyageEmbedder as Adapter
    elif provider == "openai":
        from memory_adapters.embedders.openai_embedder import DEFAULT_MODEL, OpenAIEmbedder as Adapter
    elif provider == "ollama":
        from memory_adapters.embedders.ollama_embedder import DEFAULT_MODEL, OllamaEmbedder as Adapter
    else:
        raise ProviderUnavailable(f"unknown embedding provider {provider!r}")
    return Adapter(model=model or DEFAULT_MODEL)


def _local_embedder(model: str, model_cache: Optional[str], write_model_cache: bool):
    from memory_adapters.embedders.local_embedder import MODEL_NAME, LocalOnnxEmbedder
    from memory_apps.wiring.values import MODEL_CACHE_LEVELS

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


def auto_provider() -> Optional[str]:
    """The default for a new database: local when installed, else Gemini with a key, else none."""
    from memory_adapters.embedders.local_embedder import local_model_available

    if local_model_available():
        return "local"
    if os.environ.get("GEMINI_API_KEY"):
        return "gemini"
    return None


def _keyword_tier(name: str):
    """The tier when its generator can start (a key, an SDK, a host), else none."""
    from memory_core.policies.keyword_tiers import Tier

    try:
        if name == "haiku":
            from memory_adapters.keywords.haiku_keyword_generator import HaikuKeywordGenerator

            return [Tier(name, HaikuKeywordGenerator())]
        if name == "ollama":
            from memory_adapters.keywords.ollama_keyword_generator import OllamaKeywordGenerator

            return [Tier(name, OllamaKeywordGenerator())]
    except KeywordGenerationError:
        return []
    from memory_adapters.keywords.extractive_keyword_generator import LocalExtractiveKeywordGenerator

    return [Tier("local", LocalExtractiveKeywordGenerator(), in_process=True)]


KEYWORD_CHAINS: dict[str, Callable[[], list[str]]] = {
    # Haiku (with ANTHROPIC_API_KEY), Ollama (with OLLAMA_HOST), then local
    "auto": lambda: (["haiku"] if os.environ.get("ANTHROPIC_API_KEY") else [])
    + (["ollama"] if os.environ.get("OLLAMA_HOST") else []) + ["local"],
    "haiku": lambda: ["haiku", "local"],
    "ollama": lambda: ["ollama", "local"],
    "claude": lambda: ["local"],  # keywords from the session only, then local
    "local": lambda: ["local"],
    "off": list,  # entries are stored without keywords
}
"""The tiers of each `memory_keyword_provider` value, in order (supplied keywords always come first)."""


def warn_on_stderr(message: str) -> None:
    """Show a keyword tier's failure or timeout to the user (the core only reports it)."""
    print(f"iflow-memory: {message}", file=sys.stderr)


def keyword_tiers(keyword_provider: str):
    """The keyword tiers of one `memory_keyword_provider` value."""
    from memory_core.policies.keyword_tiers import TieredKeywords

    return TieredKeywords([tier for name in KEYWORD_CHAINS[keyword_provider]() for tier in _keyword_tier(name)],
                          warn=warn_on_stderr)


def local_keyword_tiers():
    """The local extractive keyword tier alone: what a markdown import labels entries with."""
    return keyword_tiers("local")
