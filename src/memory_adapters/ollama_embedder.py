"""OllamaEmbedder: `POST {OLLAMA_HOST}/api/embed` through httpx (no key, local server)."""

from __future__ import annotations

import os
from typing import Any, Optional, Sequence

from memory_adapters.provider_errors import import_sdk, map_vendor_error, single_vector
from memory_core.errors import EmbeddingError

DEFAULT_MODEL = "nomic-embed-text"
DEFAULT_DIMENSIONS = 768
DEFAULT_HOST = "http://127.0.0.1:11434"


def ollama_host() -> str:
    """OLLAMA_HOST with a scheme (the Ollama CLI accepts a bare host:port)."""
    host = os.environ.get("OLLAMA_HOST", DEFAULT_HOST).strip() or DEFAULT_HOST
    return host if "://" in host else f"http://{host}"


class OllamaEmbedder:
    """Implements Embedder against Ollama's batch embed endpoint."""

    provider_name = "ollama"

    def __init__(self, model: str = DEFAULT_MODEL, dimensions: int = DEFAULT_DIMENSIONS,
                 timeout_s: float = 10.0, transport: Optional[Any] = None) -> None:
        httpx = import_sdk("httpx", "ollama")
        self._client = httpx.Client(base_url=ollama_host(), timeout=timeout_s, transport=transport)
        self.model_name = model
        self.dimensions = dimensions

    def _embed(self, texts: Sequence[str]) -> list[list[float]]:
        try:
            response = self._client.post("/api/embed", json={"model": self.model_name, "input": list(texts)})
            response.raise_for_status()
            body = response.json()
        except Exception as exc:  # noqa: BLE001 - mapped to the core's errors
            raise map_vendor_error(exc, "ollama") from exc
        vectors = body.get("embeddings") if isinstance(body, dict) else None
        if not isinstance(vectors, list):
            raise EmbeddingError("ollama: response has no 'embeddings'")
        return [list(v) for v in vectors]

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed documents in one request."""
        return self._embed(texts) if texts else []

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return single_vector(self._embed([text]), "ollama")
