"""HaikuKeywordGenerator: Claude Haiku through the anthropic SDK; key only from ANTHROPIC_API_KEY."""

from __future__ import annotations

import os
from typing import Any, Optional

from memory_adapters.keywords.prompt import build_prompt, parse_keywords
from memory_adapters.embedders.provider_errors import import_sdk, redact
from memory_core.errors import KeywordGenerationError

DEFAULT_MODEL = "claude-haiku-4-5"
KEY_VARIABLE = "ANTHROPIC_API_KEY"


class HaikuKeywordGenerator:
    """Implements KeywordGenerator with one short Messages API call."""

    def __init__(self, model: str = DEFAULT_MODEL, timeout_s: float = 5.0, http_client: Optional[Any] = None) -> None:
        key = os.environ.get(KEY_VARIABLE)
        if not key:
            raise KeywordGenerationError(f"{KEY_VARIABLE} is not set")
        anthropic = import_sdk("anthropic", "haiku", KeywordGenerationError)
        extra = {"http_client": http_client} if http_client is not None else {}
        self._client = anthropic.Anthropic(api_key=key, timeout=timeout_s, max_retries=0, **extra)
        self._model = model

    def generate(self, name: str, description: str, reasoning: str, category: str) -> list[str]:
        """Ask Haiku for a JSON array of keywords."""
        try:
            message = self._client.messages.create(
                model=self._model, max_tokens=200,
                system="You label engineering knowledge-base entries with search keywords.",
                messages=[{"role": "user", "content": build_prompt(name, description, reasoning, category)}],
            )
        except Exception as exc:  # noqa: BLE001 - any failure moves on to the next tier
            raise KeywordGenerationError(f"haiku: {type(exc).__name__}: {redact(str(exc))[:120]}") from exc
        text = "".join(getattr(block, "text", "") for block in message.content)
        return parse_keywords(text)
