"""OpenAIEmbedder: the openai SDK's embeddings endpoint with `dimensions`."""

from __future__ import annotations

from typing import Any, Optional

from memory_adapters.embedders.embedding_provider import ProviderEmbedder
from memory_adapters.embedders.provider_errors import import_sdk

DEFAULT_MODEL = "text-embedding-3-small"
DEFAULT_DIMENSIONS = 768
KEY_VARIABLE = "OPENAI_API_KEY"


class OpenAIEmbedder(ProviderEmbedder):
    """Implements Embedder with `client.embeddings.create(model, input, dimensions)` (the models are symmetric:
    documents and queries are embedded alike)."""

    provider_name = "openai"

    def __init__(self, model: str = DEFAULT_MODEL, dimensions: int = DEFAULT_DIMENSIONS,
                 timeout_s: float = 10.0, http_client: Optional[Any] = None) -> None:
        super().__init__(model, dimensions, KEY_VARIABLE)
        openai = import_sdk("openai", "openai")
        extra = {"http_client": http_client} if http_client is not None else {}
        self._client = openai.OpenAI(api_key=self._key, timeout=timeout_s, max_retries=0, **extra)

    def _request(self, texts: list[str], side: str) -> Any:
        return self._client.embeddings.create(model=self.model_name, input=texts, dimensions=self.dimensions)

    def _vectors(self, answer: Any) -> list[list[float]]:
        return [list(d.embedding) for d in sorted(answer.data, key=lambda d: d.index)]
