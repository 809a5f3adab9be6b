"""The container and the hook's resolver build embedders from the same recipe and answer a provider name alike,
including a name no adapter answers to (a database pinned by a newer version, say)."""

from __future__ import annotations

import pytest

from memory_apps.config import MemoryConfig
from memory_apps.wiring.container import build_container
from memory_apps.wiring.resolver import hook_wiring
from memory_core.embedding.plan import plan_embedding
from memory_core.embedding.space import EmbeddingSpace


def container_builder(tmp_path):
    return build_container(MemoryConfig(), str(tmp_path)).embedder_builder()


def table_builder(tmp_path):
    return hook_wiring(MemoryConfig(), str(tmp_path)).embedder_builder()


@pytest.mark.parametrize("make_builder", [container_builder, table_builder], ids=["container", "hook"])
def test_a_database_pinned_to_an_unknown_provider_ranks_without_vectors_and_says_why(tmp_path, make_builder):
    plan = plan_embedding("auto", "", EmbeddingSpace("cohere", "embed-v4", 1024), make_builder(tmp_path))

    assert plan.query is None and plan.target is None
    assert plan.query_problem == "cohere unavailable: unknown embedding provider 'cohere'"


@pytest.mark.parametrize("make_builder", [container_builder, table_builder], ids=["container", "hook"])
def test_an_explicit_provider_without_its_key_is_named_in_the_problem(tmp_path, make_builder, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)

    plan = plan_embedding("openai", "", None, make_builder(tmp_path))

    assert plan.target is None and plan.query_problem.startswith("openai unavailable: ")
    assert "OPENAI_API_KEY" in plan.query_problem
