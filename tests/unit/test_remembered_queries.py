"""RememberedQueries: a long-running host embeds a repeated query once, and keeps only the last few."""

from __future__ import annotations

from memory_core.embedding.remembered_queries import RememberedQueries
from memory_core.ports.embedder import Embedder
from tests.fakes import FakeEmbedder


def queries_embedded(fake: FakeEmbedder) -> list[str]:
    return [texts[0] for kind, texts in fake.calls if kind == "query"]


def test_a_repeated_query_is_embedded_once_and_gets_the_same_vector():
    fake = FakeEmbedder()
    remembered = RememberedQueries(fake)

    first = remembered.embed_query("quote csv fields")
    again = remembered.embed_query("quote csv fields")

    assert again == first == fake.embed_query("quote csv fields")
    assert queries_embedded(fake) == ["quote csv fields", "quote csv fields"]  # the second is this test's own


def test_only_the_most_recent_queries_are_kept():
    fake = FakeEmbedder()
    remembered = RememberedQueries(fake, size=2)
    for text in ("one", "two", "one", "three", "two"):
        remembered.embed_query(text)
    # "one" was used again before "three" came, so "two" was the oldest and was dropped
    assert queries_embedded(fake) == ["one", "two", "three", "two"]


def test_callers_get_vectors_of_their_own():
    remembered = RememberedQueries(FakeEmbedder())
    remembered.embed_query("mutable").append(42.0)
    assert len(remembered.embed_query("mutable")) == 64


def test_it_is_an_embedder_of_the_same_space_and_documents_pass_through():
    fake = FakeEmbedder(dimensions=16, provider_name="fake", model_name="bow")
    remembered = RememberedQueries(fake)
    assert isinstance(remembered, Embedder)
    assert (remembered.provider_name, remembered.model_name, remembered.dimensions) == ("fake", "bow", 16)
    assert remembered.embed_documents(["a doc", "a doc"]) == fake.embed_documents(["a doc", "a doc"])
    assert [kind for kind, _ in fake.calls] == ["documents"] * 2
