"""NormalisingEmbedder: every vector checked, unit length, right size; documents split into native batches."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_core.embedding.normalising import NormalisingEmbedder, l2_normalise
from memory_core.errors import EmbeddingError, RateLimited
from memory_core.entries.models import EntryDraft
from memory_core.usecases.embed_pending import EmbedPending
from tests.fakes import T0, FakeEmbedder, InMemoryEntryStore


class StubInner:
    """An inner embedder whose vectors are `vector(text)` (plus `extra` vectors, or fewer when negative)."""

    def __init__(self, vector=lambda text: [3.0, 4.0], dimensions: int = 2, extra: int = 0) -> None:
        self.provider_name, self.model_name, self.dimensions = "stub", "stub-model", dimensions
        self.vector, self.extra, self.batch_sizes = vector, extra, []

    def embed_documents(self, texts):
        self.batch_sizes.append(len(texts))
        vectors = [self.vector(t) for t in texts]
        return vectors[:len(vectors) + self.extra] if self.extra < 0 else vectors + vectors[:1] * self.extra

    def embed_query(self, text):
        return self.vector(text)


def norm(vector) -> float:
    return math.sqrt(sum(v * v for v in vector))


def test_vectors_come_out_with_unit_length():
    wrapper = NormalisingEmbedder(StubInner())
    assert wrapper.embed_documents(["a", "b"]) == [[0.6, 0.8], [0.6, 0.8]]
    assert wrapper.embed_query("q") == [0.6, 0.8]


def test_the_wrapper_reports_the_inner_space():
    wrapper = NormalisingEmbedder(StubInner(dimensions=2))
    assert (wrapper.provider_name, wrapper.model_name, wrapper.dimensions) == ("stub", "stub-model", 2)


@pytest.mark.parametrize("bad, message", [
    ([0.0, 0.0], "zero vector"),
    ([float("nan"), 1.0], "non-finite"),
    ([float("inf"), 1.0], "non-finite"),
    ([1.0, 2.0, 3.0], "3 dimensions, expected 2"),
    ([1.0], "1 dimensions, expected 2"),
])
def test_unusable_vectors_are_embedding_errors(bad, message):
    wrapper = NormalisingEmbedder(StubInner(vector=lambda text: bad))
    with pytest.raises(EmbeddingError, match=message):
        wrapper.embed_documents(["a"])
    with pytest.raises(EmbeddingError, match=message):
        wrapper.embed_query("q")


def test_documents_are_split_into_native_batches_in_order():
    inner = StubInner(vector=lambda text: [float(text), 1.0])
    texts = [str(i) for i in range(1, 8)]
    vectors = NormalisingEmbedder(inner, batch_size=3).embed_documents(texts)
    assert inner.batch_sizes == [3, 3, 1]
    expected = [[i / math.hypot(i, 1), 1 / math.hypot(i, 1)] for i in range(1, 8)]
    assert all(math.isclose(a, b) for got, want in zip(vectors, expected) for a, b in zip(got, want))
    assert len(vectors) == 7


def test_a_batch_size_below_one_means_one_text_per_call():
    inner = StubInner()
    NormalisingEmbedder(inner, batch_size=0).embed_documents(["a", "b"])
    assert inner.batch_sizes == [1, 1]


def test_no_documents_means_no_provider_call():
    inner = StubInner()
    assert NormalisingEmbedder(inner).embed_documents([]) == []
    assert inner.batch_sizes == []


@pytest.mark.parametrize("extra", [1, -1])
def test_a_provider_returning_the_wrong_number_of_vectors_is_an_error(extra):
    with pytest.raises(EmbeddingError, match="vectors for 2 texts"):
        NormalisingEmbedder(StubInner(extra=extra)).embed_documents(["a", "b"])


@settings(max_examples=200)
@given(st.lists(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False), min_size=1, max_size=32)
       .filter(lambda v: norm(v) > 1e-6))
def test_any_finite_nonzero_vector_normalises_to_unit_length(values):
    assert math.isclose(norm(l2_normalise(values, len(values))), 1.0, rel_tol=1e-9)


def test_a_rate_limit_in_a_later_native_batch_keeps_the_earlier_native_batches():
    """The wrapper promises 'an error in a batch loses only that batch' (and the ADR: 429 keeps what was done).

    With the production defaults (EmbedPending batches of 50, native batches of 32), a 429 on the second native
    call throws away the 32 vectors the provider already returned; the next run asks for the same 32 again.
    """
    class RateLimitedOnSecondCall(FakeEmbedder):
        def embed_documents(self, texts):
            if sum(1 for kind, _ in self.calls if kind == "documents") == 1:
                raise RateLimited("429")
            return super().embed_documents(texts)

    store = InMemoryEntryStore()
    for i in range(4):
        store.upsert(EntryDraft(name=f"Lesson {i}", description=f"Lesson number {i}", category="patterns"), T0)
    inner = RateLimitedOnSecondCall(dimensions=8)
    report = EmbedPending(store, NormalisingEmbedder(inner, batch_size=2), batch_size=4).run(max_entries=None)
    assert report.rate_limited is True
    assert len(inner.calls) == 1  # the provider did return two vectors
    assert len(dict(store.vectors())) == 2, "vectors of the completed native batch were discarded"
