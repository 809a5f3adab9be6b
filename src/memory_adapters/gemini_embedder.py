"""GeminiEmbedder: google-genai `gemini-embedding-001`, 768 dims, RETRIEVAL_DOCUMENT / RETRIEVAL_QUERY."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from memory_adapters.provider_errors import api_key, import_sdk, map_vendor_error, single_vector

DEFAULT_MODEL = "gemini-embedding-001"
DEFAULT_DIMENSIONS = 768
KEY_VARIABLE = "GEMINI_API_KEY"


class GeminiEmbedder:
    """Implements Embedder with the google-genai SDK; the key comes only from GEMINI_API_KEY."""

    provider_name = "gemini"

    def __init__(self, model: str = DEFAULT_MODEL, dimensions: int = DEFAULT_DIMENSIONS,
                 timeout_s: float = 10.0, http_client: Optional[Any] = None) -> None:
        self._key = key = api_key(KEY_VARIABLE)
        genai = import_sdk("google.genai", "gemini")
        types = import_sdk("google.genai.types", "gemini")
        options: dict[str, Any] = {"timeout": int(timeout_s * 1000)}
        if http_client is not None:
            options["httpx_client"] = http_client
        self._types = types
        self._client = genai.Client(api_key=key, http_options=types.HttpOptions(**options))
        self.model_name = model
        self.dimensions = dimensions

    def _embed(self, texts: Sequence[str], task: str) -> list[list[float]]:
        config = self._types.EmbedContentConfig(task_type=task, output_dimensionality=self.dimensions)
        try:
            response = self._client.models.embed_content(model=self.model_name, contents=list(texts), config=config)
        except Exception as exc:  # noqa: BLE001 - every vendor error is mapped to the core's errors
            raise map_vendor_error(exc, "gemini", self._key) from exc
        return [list(e.values or []) for e in (response.embeddings or [])]

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed documents with task type RETRIEVAL_DOCUMENT (one request per batch)."""
        return self._embed(texts, "RETRIEVAL_DOCUMENT") if texts else []

    def embed_query(self, text: str) -> list[float]:
        """Embed a query with task type RETRIEVAL_QUERY."""
        return single_vector(self._embed([text], "RETRIEVAL_QUERY"), "gemini")
