"""Tests override the real container's providers and drive the apps in process: the writer's main(), the
library's MemoryService and a session start through run_injection run whatever overrides the provider."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dependency_injector import providers

from memory_apps import cli, writer
from memory_apps.config import load_config
from memory_apps.wiring.container import Container, build_container
from memory_apps.session.injection import InjectRequest, run_injection
from memory_apps.service import MemoryService
from memory_core.session.deadline import Deadline, MonotonicTicker
from tests.fakes import T0, FakeClock, FakeEmbedder
from tests._helpers import diagnostic_line, entry_headers, write_settings

LEARNINGS = [
    ("Quote CSV fields", "Quote CSV fields that contain delimiters or newlines.", "patterns"),
    ("No Friday deploys", "Do not deploy on Friday evening without a tested rollback plan.", "anti-patterns"),
    ("Small pull requests", "Keep pull requests small so reviewers read every line.", "heuristics"),
]


@pytest.fixture
def fake_embedders():
    """Every container built meanwhile gets FakeEmbedders from its embedder provider; lists the models asked."""
    asked: list[str] = []

    def build(provider: str, model: str) -> FakeEmbedder:
        asked.append(model)
        return FakeEmbedder()

    with Container.embedder.override(providers.Factory(build)):
        yield asked


@pytest.fixture
def project(tmp_path) -> Path:
    """A project with an active CSV-export feature, so a session start has a context to embed."""
    root = tmp_path / "bank-app"
    feature = root / "docs" / "features" / "001-csv-export"
    feature.mkdir(parents=True)
    (feature / ".meta.json").write_text('{"status": "active", "slug": "csv-export", "lastCompletedPhase": "spec"}')
    (feature / "spec.md").write_text("Export CSV fields with delimiters and newlines quoted.\n")
    write_settings(root, embedding_provider="auto", keyword_provider="local")
    return root


def test_the_writer_stores_with_the_overriding_clock_and_embedder(tmp_path, isolated_home, project, capsys,
                                                                  fake_embedders):
    store = tmp_path / "G"
    flags = ["--global-store", str(store), "--project-root", str(project)]
    entry = {"name": "Quote CSV fields", "description": LEARNINGS[0][1], "category": "patterns"}

    with Container.clock.override(providers.Object(FakeClock(T0))):
        status = writer.main(["--action", "upsert", *flags, "--no-references-from-git",
                              "--entry-json", json.dumps(entry)])
    stored = capsys.readouterr().out
    entry_id = stored.rsplit("(id: ", 1)[-1].rstrip(")\n")
    assert status == 0 and stored.startswith("Stored: Quote CSV fields (id: ")
    assert cli.main(["show", entry_id, "--json", *flags]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert cli.main(["doctor", "--json", *flags]) in (0, 1)
    doctor = capsys.readouterr().out

    assert shown["created_at"] == "2026-11-01T12:00:00Z"  # the overriding clock's time, not today's
    assert shown["has_embedding"] is True and fake_embedders
    assert "fake/fake-bow (64d)" in doctor  # the database is pinned to the overriding embedder's space


def test_a_library_host_ranks_with_the_overriding_embedder_and_builds_it_once(tmp_path, isolated_home, project,
                                                                             fake_embedders):
    memory = MemoryService(global_store=str(tmp_path / "G"), project_root=str(project))

    stored = [memory.remember(name, description, category=category) for name, description, category in LEARNINGS]
    searches = [memory.search("quoting csv fields with newlines", limit=3) for _ in range(3)]
    block = memory.inject(limit=3)

    assert all(result.embedded for result in stored)
    assert all(found.vector.ran for found in searches)
    assert searches[0].selected[0].entry.name == "Quote CSV fields"
    assert "semantic: active" in diagnostic_line(block) and "model: fake-bow" in diagnostic_line(block)
    # Built once for the provider auto chose before anything was pinned, once for the pinned space: never again
    # for later writes, searches or the session start (a long-running host loads a model once).
    assert fake_embedders == ["", "fake-bow"]


def test_a_session_start_through_the_container_runs_its_overrides(tmp_path, isolated_home, project):
    store = tmp_path / "G"
    fake = FakeEmbedder()
    with Container.embedder.override(providers.Object(fake)):
        memory = MemoryService(global_store=str(store), project_root=str(project))
        for name, description, category in LEARNINGS:
            memory.remember(name, description, category=category)
    memory.container.store().close()
    settings = load_config(str(project))
    container = build_container(settings, str(store), hook_path=True)
    container.embedder.override(providers.Object(fake))
    container.clock.override(providers.Object(FakeClock(T0)))
    printed: list[str] = []

    run_injection(InjectRequest(str(project), str(store), 3), settings, lambda: container,
                  Deadline.after(MonotonicTicker(), 60.0), printed.append)

    tracking = json.loads((store / ".last-injection.json").read_text())
    assert len(entry_headers(printed[0])) == 3
    assert "semantic: active" in diagnostic_line(printed[0]) and "model: fake-bow" in diagnostic_line(printed[0])
    assert any(kind == "query" for kind, _ in fake.calls), "the session embedded its context with the fake"
    assert tracking["timestamp"] == "2026-11-01T12:00:00Z" and tracking["entries_injected"] == 3
