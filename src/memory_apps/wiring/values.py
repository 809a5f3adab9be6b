"""The configuration values every recipe reads by name: the container's `config` and the hook's alike."""

from __future__ import annotations

import os
from typing import Any, Optional

from memory_apps.config import MemoryConfig
from memory_apps.database_url import configured_url

DB_FILENAME = "memory.db"
MODEL_CACHE_PARTS = ("iflow-memory", "models")
"""The local model's optimised copy, one per user: `$XDG_CACHE_HOME/iflow-memory/models` (`~/.cache/...`)."""
MODEL_CACHE_LEVELS = len(MODEL_CACHE_PARTS)
CONNECT_TIMEOUT_S = 5.0
HOOK_CONNECT_TIMEOUT_S = 0.8
HOOK_STATEMENT_TIMEOUT_MS = 1500


def user_model_cache() -> str:
    """Where the local model's optimised copy lives: one per user, shared by every store (about 90 MB)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # the XDG rule: a relative value is ignored
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, *MODEL_CACHE_PARTS)


def container_values(settings: MemoryConfig, global_store: str, fts5: bool = True,
                     project_root: Optional[str] = None, full_check: bool = False,
                     hook_path: bool = False, keep_models: bool = False) -> dict[str, Any]:
    """The configuration of one global store and one project's settings, as flat values."""
    return {
        "db_path": os.path.join(global_store, DB_FILENAME),
        "global_store": global_store,
        # The local model's optimised copy (one per user): session starts use it, only the other paths spend
        # time building it.
        "model_cache": user_model_cache(),
        "write_model_cache": not hook_path,
        # A long-running host (the library, the MCP server) loads a model once; a one-shot process needs no cache.
        "embedders": "kept" if keep_models else "per_call",
        "project_root": project_root,
        "fts5": fts5,
        "full_check": full_check,
        # The session-start hook cannot wait 5 s for a busy database: it degrades instead.
        "busy_timeout_ms": 400 if hook_path else 5000,
        "busy_retries": 1 if hook_path else 6,
        # PostgreSQL (when configured): a session start gives a silent server a fraction of its deadline.
        "database_url": configured_url(settings.database_url),
        "connect_timeout_s": HOOK_CONNECT_TIMEOUT_S if hook_path else CONNECT_TIMEOUT_S,
        "statement_timeout_ms": HOOK_STATEMENT_TIMEOUT_MS if hook_path else 0,
        "vector_weight": settings.vector_weight,
        "keyword_weight": settings.keyword_weight,
        "prominence_weight": settings.prominence_weight,
        "embedding_provider": settings.embedding_provider,
        "embedding_model": settings.embedding_model,
        "keyword_provider": settings.keyword_provider,
        "ranking": settings.ranking,
    }
