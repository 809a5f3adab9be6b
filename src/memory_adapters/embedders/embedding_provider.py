"""ProviderEmbedder: what the embedders of a provider (Gemini, OpenAI, Voyage, Ollama) share, written once
(simonw/llm's EmbeddingModel does the same): each adapter writes its request and its reading of the answer."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Optional, Sequence

from memory_adapters.embedders.provider_errors import api_key, map_vendor_error, single_vector


class ProviderEmbedder(ABC):
    """Implements Embedder around one request to a provider: a subclass sends it (`_request`) and reads the
    answer (`_vectors`). Errors of the request are mapped to the core's, without the key; an empty batch sends
    nothing; a query must get exactly one vector."""

    provider_name: str

    def __init__(self, model: str, dimensions: int, key_variable: Optional[str] = None) -> None:
        self._key = api_key(key_variable) if key_variable else ""
        self.model_name = model
        self.dimensions = dimensions

    @abstractmethod
    def _request(self, texts: list[str], side: str) -> Any:
        """Send one request for the vectors of `texts`, `side` "document" or "query"; return the answer."""

    @abstractmethod
    def _vectors(self, answer: Any) -> list[list[float]]:
        """The vectors in the provider's answer, in the order of the texts."""

    def _embed(self, texts: Sequence[str], side: str) -> list[list[float]]:
        try:
            answer = self._request(list(texts), side)
        except Exception as exc:  # noqa: BLE001 - every provider error is mapped to the core's errors
            raise map_vendor_error(exc, self.provider_name, self._key) from exc
        return self._vectors(answer)

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed documents in one request (none for an empty list)."""
        return self._embed(texts, "document") if texts else []

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return single_vector(self._embed([text], "query"), self.provider_name)
