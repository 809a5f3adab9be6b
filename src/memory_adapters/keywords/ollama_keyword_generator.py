"""OllamaKeywordGenerator: a local Ollama chat model via `POST /api/generate`."""

from __future__ import annotations

from typing import Any, Optional

from memory_adapters.keywords.prompt import build_prompt, parse_keywords
from memory_adapters.embedders.ollama_embedder import ollama_host
from memory_adapters.embedders.provider_errors import import_sdk
from memory_core.errors import KeywordGenerationError

DEFAULT_MODEL = "llama3.2"


class OllamaKeywordGenerator:
    """Implements KeywordGenerator against a local Ollama server."""

    def __init__(self, model: str = DEFAULT_MODEL, timeout_s: float = 5.0, transport: Optional[Any] = None) -> None:
        httpx = import_sdk("httpx", "ollama", KeywordGenerationError)
        self._client = httpx.Client(base_url=ollama_host(), timeout=timeout_s, transport=transport)
        self._model = model

    def generate(self, name: str, description: str, reasoning: str, category: str) -> list[str]:
        """Ask the model for a JSON array of keywords (non-streaming)."""
        try:
            response = self._client.post("/api/generate", json={
                "model": self._model, "prompt": build_prompt(name, description, reasoning, category),
                "stream": False, "format": "json",
            })
            response.raise_for_status()
            body = response.json()
        except Exception as exc:  # noqa: BLE001 - any failure moves on to the next tier
            raise KeywordGenerationError(f"ollama: {type(exc).__name__}") from exc
        return parse_keywords(str(body.get("response", "")) if isinstance(body, dict) else "")
