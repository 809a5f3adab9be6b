"""Embedder contract checks for adapters that talk to a server (mixed in before `EmbedderContract`).

A test class sets `model`, `dimensions`, `document_kind` / `query_kind` (the task or input type the API
carries, None when it has none), `sent_dimensions` and, for cloud APIs, `key_variable` and `key`.
"""

from __future__ import annotations

from typing import Optional

import pytest

from memory_core.embedding.normalising import NormalisingEmbedder
from memory_core.errors import EmbeddingError, ProviderUnavailable, RateLimited
from tests.contract._embedding_service import FakeEmbeddingService

TEXTS = [
    "Parser reports the line and column of the first malformed heading",
    "Blue-green deploy waits for five healthy probes before switching traffic",
    "SQLite busy_timeout lets a second writer wait for the WAL lock",
]
MORE_TEXTS = TEXTS + ["Review pull requests for missing schema migrations", "Cache embeddings by content hash"]


class RemoteEmbedderChecks:
    """Request shape, error mapping and bad answers for an embedder behind a fake server."""

    model: str
    dimensions: int
    document_kind: Optional[str] = None
    query_kind: Optional[str] = None
    sent_dimensions: Optional[int] = None

    def make_service(self) -> FakeEmbeddingService:
        """The fake server this adapter's transport talks to."""
        return FakeEmbeddingService(model=self.model, dimensions=self.dimensions, key=getattr(self, "key", None))

    @pytest.fixture
    def service(self, monkeypatch):
        service = self.make_service()
        if getattr(self, "key_variable", None):
            monkeypatch.setenv(self.key_variable, self.key)
        yield service
        assert service.problems == [], "the SDK sent a request the real API would not get in this shape"

    def test_documents_go_in_one_request_as_documents(self, embedder, service):
        embedder.embed_documents(TEXTS)
        assert len(service.calls) == 1
        call = service.calls[0]
        assert (call.texts, call.model) == (TEXTS, self.model)
        assert (call.kind, call.dimensions) == (self.document_kind, self.sent_dimensions)

    def test_query_goes_as_a_query(self, embedder, service):
        embedder.embed_query("how do I make the parser report positions")
        assert [c.texts for c in service.calls] == [["how do I make the parser report positions"]]
        assert (service.calls[0].kind, service.calls[0].dimensions) == (self.query_kind, self.sent_dimensions)

    def test_each_native_batch_is_one_request(self, adapter, service):
        NormalisingEmbedder(adapter, batch_size=2).embed_documents(MORE_TEXTS)
        assert [c.texts for c in service.calls] == [MORE_TEXTS[0:2], MORE_TEXTS[2:4], MORE_TEXTS[4:]]

    @pytest.mark.parametrize("status, error", [(429, RateLimited), (500, ProviderUnavailable),
                                               (503, ProviderUnavailable), (401, ProviderUnavailable)])
    def test_http_status_maps_to_the_core_error_without_retrying(self, embedder, service, status, error):
        service.fail_with(status)
        with pytest.raises(error):
            embedder.embed_documents(TEXTS)
        assert len(service.calls) == 1

    def test_rate_limited_query_raises_rate_limited(self, embedder, service):
        service.fail_with(429)
        with pytest.raises(RateLimited):
            embedder.embed_query("parser")

    def test_unreachable_server_is_provider_unavailable(self, embedder, service):
        service.network_down = True
        with pytest.raises(ProviderUnavailable):
            embedder.embed_documents(TEXTS)
        with pytest.raises(ProviderUnavailable):
            embedder.embed_query("parser")

    def test_zero_vector_is_an_embedding_error(self, embedder, service):
        service.vectors = lambda texts: [[0.0] * self.dimensions for _ in texts]
        with pytest.raises(EmbeddingError, match="zero vector"):
            embedder.embed_documents(TEXTS)
        with pytest.raises(EmbeddingError, match="zero vector"):
            embedder.embed_query("parser")

    def test_wrong_dimension_count_is_an_embedding_error(self, embedder, service):
        service.vectors = lambda texts: [[0.5] * (self.dimensions - 1) for _ in texts]
        with pytest.raises(EmbeddingError, match="dimensions"):
            embedder.embed_documents(TEXTS)
        with pytest.raises(EmbeddingError, match="dimensions"):
            embedder.embed_query("parser")

    def test_answer_missing_vectors_for_documents_is_an_embedding_error(self, embedder, service):
        service.vectors = lambda texts: [[0.5] * self.dimensions for _ in texts[1:]]
        with pytest.raises(EmbeddingError):
            embedder.embed_documents(TEXTS)

    def test_answer_without_a_vector_for_a_query_is_an_embedding_error(self, embedder, service):
        # Retrieval catches EmbeddingError and falls back to keyword search; anything else aborts it.
        service.vectors = lambda texts: []
        with pytest.raises(EmbeddingError):
            embedder.embed_query("parser")

    def test_rate_limit_in_the_second_batch_raises_after_the_first_was_sent(self, adapter, service):
        service.fail_with(200, 429)
        with pytest.raises(RateLimited):
            NormalisingEmbedder(adapter, batch_size=2).embed_documents(MORE_TEXTS)
        assert [c.texts for c in service.calls] == [MORE_TEXTS[0:2], MORE_TEXTS[2:4]]


class CloudEmbedderChecks(RemoteEmbedderChecks):
    """Adds what a keyed cloud API must do with its key."""

    key_variable: str
    key: str

    def test_key_is_sent_where_the_api_expects_it(self, embedder, service):
        embedder.embed_query("parser")
        assert service.calls[0].auth == self.key

    def test_missing_key_is_unavailable_at_construction_and_sends_nothing(self, service, monkeypatch):
        monkeypatch.delenv(self.key_variable)
        with pytest.raises(ProviderUnavailable, match=self.key_variable):
            self.make_embedder(service)
        assert service.calls == []

    @pytest.mark.parametrize("status", [400, 401, 403, 429, 500])
    def test_key_never_appears_in_the_error_message(self, embedder, service, status):
        service.error_detail = f"API key {self.key} is not valid for this project"
        service.fail_with(status)
        with pytest.raises(EmbeddingError) as caught:
            embedder.embed_documents(TEXTS)
        assert self.key not in str(caught.value)
