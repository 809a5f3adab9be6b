"""The keyword tiers `memory_keyword_provider` selects: one chain of tiers per setting, the container's Selector
alternatives (supplied keywords always come first; the local extractive tier ends every chain but `off`)."""

from __future__ import annotations

import os
import sys
from typing import Callable

from memory_apps.wiring.adapter_factories import extractive_keywords, haiku_keywords, ollama_keywords
from memory_core.errors import KeywordGenerationError
from memory_core.policies.keyword_tiers import Tier, TieredKeywords


def warn_on_stderr(message: str) -> None:
    """Show a keyword tier's failure or timeout to the user (the core only reports it)."""
    print(f"iflow-memory: {message}", file=sys.stderr)


def _remote(name: str, build: Callable[[], object]) -> list[Tier]:
    """The tier when its generator can start (a key, an SDK, a host), else none."""
    try:
        return [Tier(name, build())]
    except KeywordGenerationError:
        return []


def _local() -> list[Tier]:
    return [Tier("local", extractive_keywords(), in_process=True)]


def _auto() -> list[Tier]:
    tiers = _remote("haiku", haiku_keywords) if os.environ.get("ANTHROPIC_API_KEY") else []
    tiers += _remote("ollama", ollama_keywords) if os.environ.get("OLLAMA_HOST") else []
    return tiers + _local()


KEYWORD_CHAINS: dict[str, Callable[[], list[Tier]]] = {
    "auto": _auto,  # Haiku (with ANTHROPIC_API_KEY), Ollama (with OLLAMA_HOST), then local
    "haiku": lambda: _remote("haiku", haiku_keywords) + _local(),
    "ollama": lambda: _remote("ollama", ollama_keywords) + _local(),
    "claude": _local,  # keywords from the session only, then local
    "local": _local,
    "off": list,  # entries are stored without keywords
}
"""The tiers of each `memory_keyword_provider` value, in order."""


def build_keyword_tiers(provider: str) -> TieredKeywords:
    """The keyword tiers of one `memory_keyword_provider` value."""
    return TieredKeywords(KEYWORD_CHAINS[provider](), warn=warn_on_stderr)
