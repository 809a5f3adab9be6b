"""OllamaEmbedder: `POST {OLLAMA_HOST}/api/embed` through httpx (no key, local server)."""

from __future__ import annotations

import os
from typing import Any, Optional

from memory_adapters.embedders.embedding_provider import ProviderEmbedder
from memory_adapters.embedders.provider_errors import import_sdk
from memory_core.errors import EmbeddingError

DEFAULT_MODEL = "nomic-embed-text"
DEFAULT_DIMENSIONS = 768
DEFAULT_HOST = "http://127.0.0.1:11434"


def ollama_host() -> str:
    """OLLAMA_HOST with a scheme (the Ollama CLI accepts a bare host:port)."""
    host = os.environ.get("OLLAMA_HOST", DEFAULT_HOST).strip() or DEFAULT_HOST
    return host if "://" in host else f"http://{host}"


class OllamaEmbedder(ProviderEmbedder):
    """Implements Embedder against Ollama's batch embed endpoint."""

    provider_name = "ollama"

    def __init__(self, model: str = DEFAULT_MODEL, dimensions: int = DEFAULT_DIMENSIONS,
                 timeout_s: float = 10.0, transport: Optional[Any] = None) -> None:
        super().__init__(model, dimensions)
        httpx = import_sdk("httpx", "ollama")
        self._client = httpx.Client(base_url=ollama_host(), timeout=timeout_s, transport=transport)

    def _request(self, texts: list[str], side: str) -> Any:
        response = self._client.post("/api/embed", json={"model": self.model_name, "input": texts})
        response.raise_for_status()
        return response.json()

    def _vectors(self, answer: Any) -> list[list[float]]:
        vectors = answer.get("embeddings") if isinstance(answer, dict) else None
        if not isinstance(vectors, list):
            raise EmbeddingError("ollama: response has no 'embeddings'")
        return [list(v) for v in vectors]
