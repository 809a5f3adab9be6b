"""VoyageEmbedder: the voyageai SDK with input_type document/query."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from memory_adapters.provider_errors import api_key, import_sdk, map_vendor_error, single_vector

DEFAULT_MODEL = "voyage-code-3"
DEFAULT_DIMENSIONS = 1024
KEY_VARIABLE = "VOYAGE_API_KEY"


class VoyageEmbedder:
    """Implements Embedder with `voyageai.Client.embed(texts, model, input_type, output_dimension)`.

    `session` (a requests.Session) replaces the SDK's HTTP session, which is how tests fake the transport.
    """

    provider_name = "voyage"

    def __init__(self, model: str = DEFAULT_MODEL, dimensions: int = DEFAULT_DIMENSIONS,
                 timeout_s: float = 10.0, session: Optional[Any] = None) -> None:
        self._key = key = api_key(KEY_VARIABLE)
        voyageai = import_sdk("voyageai", "voyage")
        if session is not None:
            voyageai.requestssession = session
            # The SDK caches one session per thread; drop it so the injected one is used.
            from voyageai.api_resources import api_requestor

            for attribute in ("session", "session_create_time"):
                if hasattr(api_requestor._thread_context, attribute):
                    delattr(api_requestor._thread_context, attribute)
        self._client = voyageai.Client(api_key=key, max_retries=0, timeout=timeout_s)
        self.model_name = model
        self.dimensions = dimensions

    def _embed(self, texts: Sequence[str], input_type: str) -> list[list[float]]:
        try:
            result = self._client.embed(list(texts), model=self.model_name, input_type=input_type,
                                        output_dimension=self.dimensions)
        except Exception as exc:  # noqa: BLE001 - mapped to the core's errors
            raise map_vendor_error(exc, "voyage", self._key) from exc
        return [list(v) for v in result.embeddings]

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed documents with input_type=document."""
        return self._embed(texts, "document") if texts else []

    def embed_query(self, text: str) -> list[float]:
        """Embed a query with input_type=query."""
        return single_vector(self._embed([text], "query"), "voyage")
