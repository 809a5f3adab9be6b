"""Builds the keyword tiers selected by `memory_keyword_provider`."""

from __future__ import annotations

import os
import sys

from memory_adapters.extractive_keyword_generator import LocalExtractiveKeywordGenerator
from memory_core.errors import KeywordGenerationError
from memory_core.keyword_tiers import Tier, TieredKeywords


def warn_on_stderr(message: str) -> None:
    """Show a keyword tier's failure or timeout to the user (the core only reports it)."""
    print(f"iflow-memory: {message}", file=sys.stderr)


def _haiku() -> list[Tier]:
    try:
        from memory_adapters.haiku_keyword_generator import HaikuKeywordGenerator

        return [Tier("haiku", HaikuKeywordGenerator())]
    except KeywordGenerationError:
        return []


def _ollama() -> list[Tier]:
    try:
        from memory_adapters.ollama_keyword_generator import OllamaKeywordGenerator

        return [Tier("ollama", OllamaKeywordGenerator())]
    except KeywordGenerationError:
        return []


def build_keyword_tiers(provider: str) -> TieredKeywords:
    """Supplied keywords always come first; then the chosen tiers; the local extractive tier ends every chain.

    auto: Haiku (when ANTHROPIC_API_KEY is set), Ollama (when OLLAMA_HOST is set), local.
    claude: keywords from the session only, then local. haiku / ollama: that tier, then local.
    local: local only. off: none (entries are stored without keywords).
    """
    return TieredKeywords(_tiers(provider), warn=warn_on_stderr)


def _tiers(provider: str) -> list[Tier]:
    local = [Tier("local", LocalExtractiveKeywordGenerator(), in_process=True)]
    if provider == "off":
        return []
    if provider == "haiku":
        return _haiku() + local
    if provider == "ollama":
        return _ollama() + local
    if provider in ("claude", "local"):
        return local
    tiers = _haiku() if os.environ.get("ANTHROPIC_API_KEY") else []
    tiers += _ollama() if os.environ.get("OLLAMA_HOST") else []
    return tiers + local
