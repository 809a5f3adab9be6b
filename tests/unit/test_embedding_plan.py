"""plan_embedding: the pinned space always serves queries; writes go to the configured provider."""

from __future__ import annotations

import math

import pytest

from memory_core.embedding.plan import plan_embedding
from memory_core.embedding.normalising import NormalisingEmbedder
from memory_core.errors import ProviderUnavailable
from memory_core.embedding.space import EmbeddingSpace
from tests.fakes import FakeEmbedder

DIMENSIONS = {"local": 8, "gemini": 12, "voyage": 16}
LOCAL = EmbeddingSpace("local", "local-default", 8)
GEMINI = EmbeddingSpace("gemini", "gemini-default", 12)


class RecordingBuilder:
    """Builds FakeEmbedders ('' = the provider's default model); 'broken' is unavailable, 'crashy' crashes."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def __call__(self, provider: str, model: str):
        self.calls.append((provider, model))
        if provider == "broken":
            raise ProviderUnavailable("no API key set")
        if provider == "crashy":
            raise RuntimeError("SDK import blew up")
        return FakeEmbedder(dimensions=DIMENSIONS.get(provider, 4), provider_name=provider,
                            model_name=model or f"{provider}-default")


@pytest.fixture
def builder() -> RecordingBuilder:
    return RecordingBuilder()


@pytest.fixture
def no_auto():
    """An auto_provider that must not be consulted: fails the test if it is."""
    def forbidden():
        raise AssertionError("auto_provider was called")
    return forbidden


def space(embedder) -> EmbeddingSpace:
    return EmbeddingSpace.of(embedder)


def test_none_means_no_embedders_and_says_so(builder, no_auto):
    plan = plan_embedding("none", "", GEMINI, builder, auto_provider=no_auto)
    assert (plan.query, plan.target) == (None, None)
    assert "none" in plan.problem
    assert builder.calls == []


def test_auto_with_a_pinned_space_builds_only_the_pinned_provider(builder, no_auto):
    plan = plan_embedding("auto", "some-other-model", GEMINI, builder, auto_provider=no_auto)
    assert builder.calls == [("gemini", "gemini-default")]
    assert plan.query is plan.target
    assert space(plan.query) == GEMINI
    assert plan.problem == ""


def test_auto_never_reembeds_even_when_the_pinned_provider_is_gone(builder, no_auto):
    pinned = EmbeddingSpace("broken", "old-model", 4)
    plan = plan_embedding("auto", "", pinned, builder, auto_provider=no_auto)
    assert builder.calls == [("broken", "old-model")]
    assert (plan.query, plan.target) == (None, None)
    assert "broken unavailable" in plan.problem and "no API key set" in plan.problem


@pytest.mark.parametrize("provider", ["local", "gemini"])
def test_auto_on_a_new_database_uses_the_auto_provider(builder, provider):
    plan = plan_embedding("auto", "", None, builder, auto_provider=lambda: provider)
    assert builder.calls == [(provider, "")]
    assert plan.query is plan.target
    assert space(plan.target).provider == provider
    assert plan.problem == ""


def test_auto_on_a_new_database_without_any_provider(builder):
    plan = plan_embedding("auto", "", None, builder, auto_provider=lambda: None)
    assert (plan.query, plan.target) == (None, None)
    assert "no embedding provider" in plan.problem
    assert builder.calls == []


@pytest.mark.parametrize("model", ["gemini-default", ""])
def test_explicit_provider_of_the_pinned_space_does_not_reembed(builder, no_auto, model):
    plan = plan_embedding("gemini", model, GEMINI, builder, auto_provider=no_auto)
    assert builder.calls == [("gemini", model)]
    assert plan.query is plan.target
    assert space(plan.query) == GEMINI
    assert plan.problem == ""


def test_explicit_other_provider_queries_the_pinned_space_and_writes_the_new_one(builder, no_auto):
    plan = plan_embedding("gemini", "", LOCAL, builder, auto_provider=no_auto)
    assert space(plan.query) == LOCAL
    assert space(plan.target) == GEMINI
    assert plan.problem == ""
    assert sorted(builder.calls) == [("gemini", ""), ("local", "local-default")]


def test_explicit_other_model_of_the_same_provider_is_another_space(builder, no_auto):
    plan = plan_embedding("gemini", "gemini-large", GEMINI, builder, auto_provider=no_auto)
    assert space(plan.query) == GEMINI
    assert space(plan.target) == EmbeddingSpace("gemini", "gemini-large", 12)


def test_explicit_provider_on_a_new_database_serves_both(builder, no_auto):
    plan = plan_embedding("voyage", "", None, builder, auto_provider=no_auto)
    assert builder.calls == [("voyage", "")]
    assert plan.query is plan.target and space(plan.query).provider == "voyage"


def test_without_a_target_only_the_pinned_provider_is_built(builder, no_auto):
    plan = plan_embedding("gemini", "", LOCAL, builder, want_target=False, auto_provider=no_auto)
    assert builder.calls == [("local", "local-default")]  # the hook never pays for the new provider
    assert space(plan.query) == LOCAL
    assert plan.target is None


def test_pinned_provider_unavailable_leaves_no_query_but_keeps_the_target(builder, no_auto):
    pinned = EmbeddingSpace("broken", "old-model", 4)
    plan = plan_embedding("gemini", "", pinned, builder, auto_provider=no_auto)
    assert plan.query is None
    assert "broken unavailable" in plan.problem and "no API key set" in plan.problem
    assert space(plan.target) == GEMINI


def test_new_provider_unavailable_keeps_queries_on_the_pinned_space(builder, no_auto):
    plan = plan_embedding("broken", "", GEMINI, builder, auto_provider=no_auto)
    assert space(plan.query) == GEMINI
    assert plan.target is None
    assert "broken unavailable" in plan.problem


def test_a_crashing_builder_is_reported_not_raised(builder, no_auto):
    plan = plan_embedding("crashy", "", None, builder, auto_provider=no_auto)
    assert (plan.query, plan.target) == (None, None)
    assert plan.problem == "crashy failed to start: RuntimeError"


def test_planned_embedders_normalise_their_vectors(builder, no_auto):
    plan = plan_embedding("gemini", "", LOCAL, builder, auto_provider=no_auto)
    assert isinstance(plan.query, NormalisingEmbedder) and isinstance(plan.target, NormalisingEmbedder)
    vector = plan.target.embed_query("parsing config files")
    assert len(vector) == 12
    assert math.isclose(math.sqrt(sum(v * v for v in vector)), 1.0, rel_tol=1e-9)
