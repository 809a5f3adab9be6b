"""OpenAIEmbedder: the openai SDK's embeddings endpoint with `dimensions`."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from memory_adapters.provider_errors import api_key, import_sdk, map_vendor_error, single_vector

DEFAULT_MODEL = "text-embedding-3-small"
DEFAULT_DIMENSIONS = 768
KEY_VARIABLE = "OPENAI_API_KEY"


class OpenAIEmbedder:
    """Implements Embedder with `client.embeddings.create(model, input, dimensions)`."""

    provider_name = "openai"

    def __init__(self, model: str = DEFAULT_MODEL, dimensions: int = DEFAULT_DIMENSIONS,
                 timeout_s: float = 10.0, http_client: Optional[Any] = None) -> None:
        self._key = key = api_key(KEY_VARIABLE)
        openai = import_sdk("openai", "openai")
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
