"""Embedder contract: every adapter, wrapped in NormalisingEmbedder, gives unit vectors of its space.

Cloud adapters run against fake transports that check the request the real API would get
(see `_embedding_transports`); the local adapter runs the real bundled ONNX model, offline.
"""

from __future__ import annotations

import functools
import math
import re
import shutil

import httpx2
import pytest

from memory_adapters.embedders.gemini_embedder import GeminiEmbedder
from memory_adapters.embedders.local_embedder import LocalOnnxEmbedder, bundled_model_path
from memory_adapters.embedders.ollama_embedder import OllamaEmbedder
from memory_adapters.embedders.openai_embedder import OpenAIEmbedder
from memory_adapters.embedders.provider_errors import map_vendor_error
from memory_adapters.embedders.voyage_embedder import VoyageEmbedder
from memory_core.embedding.normalising import NormalisingEmbedder
from memory_core.errors import EmbeddingError, ProviderUnavailable, RateLimited
from memory_core.entries.models import EntryDraft
from memory_core.ports.embedder import Embedder
from memory_core.usecases.embed_pending import EmbedPending
from tests.contract._embedding_service import FakeEmbeddingService
from tests.contract._embedding_transports import (OPENAI_URL, gemini_transport, ollama_transport,
                                                  openai_transport, voyage_session)
from tests.contract._remote_embedder_contract import MORE_TEXTS, TEXTS, CloudEmbedderChecks, RemoteEmbedderChecks
from tests.fakes import T0, FakeEmbedder, InMemoryEntryStore


def cosine(a, b) -> float:
    """Cosine similarity of two vectors."""
    return sum(x * y for x, y in zip(a, b)) / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def assert_unit_vector(vector, dimensions: int) -> None:
    """A plain list of `dimensions` finite floats with L2 norm 1."""
    assert isinstance(vector, list) and len(vector) == dimensions
    assert all(type(v) is float and math.isfinite(v) for v in vector)
    assert math.sqrt(sum(v * v for v in vector)) == pytest.approx(1.0, abs=1e-6)


class EmbedderContract:
    """Behaviour every Embedder shows through NormalisingEmbedder; subclasses supply `make_embedder(service)`,
    the adapter under test (`service`: the fake server remote suites provide, else None)."""

    provider: str
    model: str
    dimensions: int

    @pytest.fixture
    def adapter(self, service):
        return self.make_embedder(service)

    @pytest.fixture
    def embedder(self, adapter):
        return NormalisingEmbedder(adapter)

    def test_names_its_provider_model_and_dimensions(self, adapter, embedder):
        assert isinstance(adapter, Embedder)
        assert (adapter.provider_name, adapter.model_name, adapter.dimensions) == (
            self.provider, self.model, self.dimensions)
        assert (embedder.provider_name, embedder.model_name, embedder.dimensions) == (
            self.provider, self.model, self.dimensions)

    def test_documents_give_one_unit_vector_per_text(self, embedder):
        vectors = embedder.embed_documents(TEXTS)
        assert len(vectors) == len(TEXTS)
        for vector in vectors:
            assert_unit_vector(vector, self.dimensions)

    def test_query_gives_one_unit_vector(self, embedder):
        assert_unit_vector(embedder.embed_query("how should the parser report malformed input"), self.dimensions)

    def test_empty_document_list_gives_empty_list_and_sends_nothing(self, embedder, service):
        assert embedder.embed_documents([]) == []
        assert service is None or service.calls == []

    def test_same_text_gives_same_vector(self, embedder):
        first = embedder.embed_documents(TEXTS)
        again = embedder.embed_documents([TEXTS[2], TEXTS[0]])
        assert again[0] == pytest.approx(first[2], abs=1e-6)
        assert again[1] == pytest.approx(first[0], abs=1e-6)
        assert embedder.embed_query(TEXTS[1]) == pytest.approx(embedder.embed_query(TEXTS[1]), abs=1e-6)

    def test_different_texts_give_different_vectors(self, embedder):
        parser, deploy, _ = embedder.embed_documents(TEXTS)
        assert cosine(parser, deploy) < 0.99

    def test_small_batches_give_the_same_vectors_in_order(self, adapter, embedder):
        batched = NormalisingEmbedder(adapter, batch_size=2).embed_documents(MORE_TEXTS)
        whole = embedder.embed_documents(MORE_TEXTS)
        assert len(batched) == len(MORE_TEXTS)
        for got, expected in zip(batched, whole):
            assert got == pytest.approx(expected, abs=1e-6)


class TestGeminiEmbedder(CloudEmbedderChecks, EmbedderContract):
    provider, model, dimensions = "gemini", "gemini-embedding-001", 768
    document_kind, query_kind, sent_dimensions = "RETRIEVAL_DOCUMENT", "RETRIEVAL_QUERY", 768
    key_variable, key = "GEMINI_API_KEY", "AIzaSyFAKE-contract-key-000000001"

    def make_embedder(self, service):
        return GeminiEmbedder(http_client=httpx2.Client(transport=gemini_transport(service)))

    def test_request_goes_to_the_models_embed_endpoint(self, embedder, service):
        embedder.embed_documents(TEXTS)
        assert re.search(r"/models/gemini-embedding-001:(batchEmbedContents|embedContent)$", service.calls[0].url)


class TestOpenAIEmbedder(CloudEmbedderChecks, EmbedderContract):
    provider, model, dimensions = "openai", "text-embedding-3-small", 768
    sent_dimensions = 768
    key_variable, key = "OPENAI_API_KEY", "sk-FAKE-contract-key-000000001"

    def make_embedder(self, service):
        return OpenAIEmbedder(http_client=httpx2.Client(transport=openai_transport(service)))

    def test_request_goes_to_v1_embeddings(self, embedder, service):
        embedder.embed_query("parser")
        assert service.calls[0].url == OPENAI_URL


class TestVoyageEmbedder(CloudEmbedderChecks, EmbedderContract):
    provider, model, dimensions = "voyage", "voyage-code-3", 1024
    document_kind, query_kind, sent_dimensions = "document", "query", 1024
    key_variable, key = "VOYAGE_API_KEY", "pa-FAKE-contract-key-000000001"

    @pytest.fixture(autouse=True)
    def _fresh_voyage_sdk_state(self, monkeypatch):
        # The adapter sets the module-global voyageai.requestssession; the SDK also caches one session per
        # thread for 180 s. Both are reset so each test talks to its own fake server.
        import voyageai
        from voyageai.api_resources import api_requestor

        monkeypatch.setattr(voyageai, "requestssession", voyageai.requestssession)
        self._forget_cached_session(api_requestor)
        yield
        self._forget_cached_session(api_requestor)

    @staticmethod
    def _forget_cached_session(api_requestor) -> None:
        if hasattr(api_requestor._thread_context, "session"):
            del api_requestor._thread_context.session

    def make_embedder(self, service):
        return VoyageEmbedder(session=voyage_session(service))

    def test_request_goes_to_v1_embeddings(self, embedder, service):
        embedder.embed_query("parser")
        assert service.calls[0].url == "https://api.voyageai.com/v1/embeddings"

    def test_a_new_embedder_uses_its_own_session_after_an_earlier_request(self, service):
        VoyageEmbedder(session=voyage_session(service)).embed_query("first")
        second = self.make_service()
        second.fail_with(429)
        with pytest.raises(RateLimited):
            VoyageEmbedder(session=voyage_session(second)).embed_query("second")
        assert [c.texts for c in service.calls] == [["first"]]
        assert [c.texts for c in second.calls] == [["second"]]

    def test_atlas_issued_key_never_appears_in_the_error_message(self, service, monkeypatch):
        # The SDK accepts MongoDB Atlas keys ("al-", routed to ai.mongodb.com) as Voyage keys.
        service.key = "al-FAKE-contract-key-000000001"
        monkeypatch.setenv(self.key_variable, service.key)
        service.error_detail = f"API key {service.key} is not valid for this project"
        service.fail_with(400)
        with pytest.raises(EmbeddingError) as caught:
            NormalisingEmbedder(self.make_embedder(service)).embed_documents(TEXTS)
        assert service.key not in str(caught.value)


class TestOllamaEmbedder(RemoteEmbedderChecks, EmbedderContract):
    provider, model, dimensions = "ollama", "nomic-embed-text", 768
    host = "http://127.0.0.1:9999"

    @pytest.fixture(autouse=True)
    def _ollama_host(self, monkeypatch):
        monkeypatch.setenv("OLLAMA_HOST", self.host)

    def make_embedder(self, service):
        return OllamaEmbedder(transport=ollama_transport(service, self.host))

    def test_requests_go_to_ollama_host(self, embedder, service):
        embedder.embed_query("parser")
        assert service.calls[0].url == "http://127.0.0.1:9999/api/embed"

    def test_bare_host_and_port_get_a_scheme(self, service, monkeypatch):
        monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9999")
        NormalisingEmbedder(self.make_embedder(service)).embed_query("parser")
        assert service.calls[0].url == "http://127.0.0.1:9999/api/embed"


@functools.lru_cache(maxsize=None)
def bundled_local_embedder() -> LocalOnnxEmbedder:
    """One loaded copy of the bundled model for the whole run (loading costs ~0.3 s)."""
    return LocalOnnxEmbedder()


class TestLocalOnnxEmbedder(EmbedderContract):
    provider, model, dimensions = "local", "all-MiniLM-L6-v2-int8", 384

    def make_embedder(self, service):
        return bundled_local_embedder()

    def test_parser_query_is_closer_to_a_parser_learning_than_to_a_deploy_learning(self, embedder):
        query = embedder.embed_query("building a file parser with error handling")
        parser, deploy = embedder.embed_documents([
            "The markdown parser raises ParseFailure with the line and column of a malformed heading",
            "Deploy the service with a blue-green rollout and roll back when health checks fail"])
        assert cosine(query, parser) > cosine(query, deploy) + 0.1

    def test_a_user_supplied_model_directory_works(self, tmp_path, embedder):
        model_dir = tmp_path / "minilm"
        model_dir.mkdir()
        shutil.copyfile(bundled_model_path(), model_dir / "model.onnx")
        own = NormalisingEmbedder(LocalOnnxEmbedder(model_dir=str(model_dir)))
        assert (own.provider_name, own.model_name, own.dimensions) == ("local", str(model_dir.resolve()), 384)
        for got, expected in zip(own.embed_documents(TEXTS), embedder.embed_documents(TEXTS)):
            assert got == pytest.approx(expected, abs=1e-6)

    def test_a_directory_without_model_onnx_is_unavailable(self, tmp_path):
        with pytest.raises(ProviderUnavailable, match="model.onnx"):
            LocalOnnxEmbedder(model_dir=str(tmp_path))


class TestFakeEmbedder(EmbedderContract):
    provider, model, dimensions = "fake", "fake-bow", 64

    def make_embedder(self, service):
        return FakeEmbedder()


def test_rate_limit_in_a_later_batch_keeps_the_vectors_already_received(monkeypatch):
    # RateLimited's promise is "stop the batch and keep what was done"; NormalisingEmbedder's docstring says
    # "an error in a batch loses only that batch". EmbedPending hands it 50 texts, which it sends as 32 + 18.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-FAKE-contract-key-000000001")
    service = FakeEmbeddingService(model="text-embedding-3-small", dimensions=768)
    embedder = NormalisingEmbedder(OpenAIEmbedder(http_client=httpx2.Client(transport=openai_transport(service))))
    store = InMemoryEntryStore()
    for n in range(40):
        store.upsert(EntryDraft(name=f"learning {n}", description=f"parser lesson number {n}",
                                category="patterns"), T0)
    service.fail_with(200, 429)
    report = EmbedPending(store, embedder).run(max_entries=None)
    assert report.rate_limited
    assert [len(c.texts) for c in service.calls] == [32, 8]
    assert report.embedded == 32, "the 32 vectors the provider returned (and billed) were thrown away"


@pytest.mark.parametrize("message, secret", [
    ("Incorrect API key provided: sk-abc123xyz", "sk-abc123xyz"),  # cut short: no shape the core knows
    ("GET /v1/models?key=hunter2hunter2 failed", "hunter2hunter2"),
    ("cannot reach postgres://app:Pg5ecretPassw0rd@db.internal/app", "Pg5ecretPassw0rd"),  # the core's own shape
])
def test_a_vendor_error_message_never_carries_a_key(message, secret):
    error = map_vendor_error(ValueError(message), "openai")
    assert secret not in str(error) and "[REDACTED]" in str(error), str(error)
