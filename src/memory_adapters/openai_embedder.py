"""OpenAIEmbedder: the openai SDK's embeddings endpoint with `dimensions`."""

from __future__ import annotations

import os
from typing import Any, Optional, Sequence

from memory_adapters.provider_errors import map_vendor_error, single_vector
from memory_core.errors import ProviderUnavailable

DEFAULT_MODEL = "text-embedding-3-small"
DEFAULT_DIMENSIONS = 768
KEY_VARIABLE = "OPENAI_API_KEY"
INSTALL_HINT = "pip install 'iflow-memory[openai]'"


class OpenAIEmbedder:
    """Implements Embedder with `client.embeddings.create(model, input, dimensions)`."""

    provider_name = "openai"

    def __init__(self, model: str = DEFAULT_MODEL, dimensions: int = DEFAULT_DIMENSIONS,
                 timeout_s: float = 10.0, http_client: Optional[Any] = None) -> None:
        key = os.environ.get(KEY_VARIABLE)
        if not key:
            raise ProviderUnavailable(f"{KEY_VARIABLE} is not set")
        self._key = key
        try:
            import openai
        except ImportError as exc:
            raise ProviderUnavailable(f"openai is not installed: {INSTALL_HINT}") from exc
        extra = {"http_client": http_client} if http_client is not None else {}
        self._client = openai.OpenAI(api_key=key, timeout=timeout_s, max_retries=0, **extra)
        self.model_name = model
        self.dimensions = dimensions

    def _embed(self, texts: Sequence[str]) -> list[list[float]]:
        try:
            response = self._client.embeddings.create(model=self.model_name, input=list(texts),
                                                      dimensions=self.dimensions)
        except Exception as exc:  # noqa: BLE001 - mapped to the core's errors
            raise map_vendor_error(exc, "openai", self._key) from exc
        ordered = sorted(response.data, key=lambda d: d.index)
        return [list(d.embedding) for d in ordered]

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed a batch of documents in one request."""
        return self._embed(texts) if texts else []

    def embed_query(self, text: str) -> list[float]:
        """Embed one query (OpenAI models are symmetric)."""
        return single_vector(self._embed([text]), "openai")
