"""GeminiEmbedder: google-genai `gemini-embedding-001`, 768 dims, RETRIEVAL_DOCUMENT / RETRIEVAL_QUERY."""

from __future__ import annotations

from typing import Any, Optional

from memory_adapters.embedders.embedding_provider import ProviderEmbedder
from memory_adapters.embedders.provider_errors import import_sdk

DEFAULT_MODEL = "gemini-embedding-001"
DEFAULT_DIMENSIONS = 768
KEY_VARIABLE = "GEMINI_API_KEY"


class GeminiEmbedder(ProviderEmbedder):
    """Implements Embedder with the google-genai SDK; the key comes only from GEMINI_API_KEY.

    Documents are embedded with task type RETRIEVAL_DOCUMENT, queries with RETRIEVAL_QUERY (one request a batch).
    """

    provider_name = "gemini"

    def __init__(self, model: str = DEFAULT_MODEL, dimensions: int = DEFAULT_DIMENSIONS,
                 timeout_s: float = 10.0, http_client: Optional[Any] = None) -> None:
        super().__init__(model, dimensions, KEY_VARIABLE)
        genai = import_sdk("google.genai", "gemini")
        types = import_sdk("google.genai.types", "gemini")
        options: dict[str, Any] = {"timeout": int(timeout_s * 1000)}
        if http_client is not None:
            options["httpx_client"] = http_client
        self._types = types
        self._client = genai.Client(api_key=self._key, http_options=types.HttpOptions(**options))

    def _request(self, texts: list[str], side: str) -> Any:
        config = self._types.EmbedContentConfig(task_type=f"RETRIEVAL_{side.upper()}",
                                                output_dimensionality=self.dimensions)
        return self._client.models.embed_content(model=self.model_name, contents=texts, config=config)

    def _vectors(self, answer: Any) -> list[list[float]]:
        return [list(e.values or []) for e in (answer.embeddings or [])]
