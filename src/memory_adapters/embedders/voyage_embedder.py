"""VoyageEmbedder: the voyageai SDK with input_type document/query."""

from __future__ import annotations

from typing import Any, Optional

from memory_adapters.embedders.embedding_provider import ProviderEmbedder
from memory_adapters.embedders.provider_errors import import_sdk

DEFAULT_MODEL = "voyage-code-3"
DEFAULT_DIMENSIONS = 1024
KEY_VARIABLE = "VOYAGE_API_KEY"


class VoyageEmbedder(ProviderEmbedder):
    """Implements Embedder with `voyageai.Client.embed(texts, model, input_type, output_dimension)`.

    `session` (a requests.Session) replaces the SDK's HTTP session, which is how tests fake the transport.
    """

    provider_name = "voyage"

    def __init__(self, model: str = DEFAULT_MODEL, dimensions: int = DEFAULT_DIMENSIONS,
                 timeout_s: float = 10.0, session: Optional[Any] = None) -> None:
        super().__init__(model, dimensions, KEY_VARIABLE)
        voyageai = import_sdk("voyageai", "voyage")
        if session is not None:
            voyageai.requestssession = session
            # The SDK caches one session per thread; drop it so the injected one is used.
            from voyageai.api_resources import api_requestor

            for attribute in ("session", "session_create_time"):
                if hasattr(api_requestor._thread_context, attribute):
                    delattr(api_requestor._thread_context, attribute)
        self._client = voyageai.Client(api_key=self._key, max_retries=0, timeout=timeout_s)

    def _request(self, texts: list[str], side: str) -> Any:
        return self._client.embed(texts, model=self.model_name, input_type=side, output_dimension=self.dimensions)

    def _vectors(self, answer: Any) -> list[list[float]]:
        return [list(v) for v in answer.embeddings]
