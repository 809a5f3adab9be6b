"""The session-start hook's hand wiring stays in step with the container, and its process stays lean."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memory_apps.config import MemoryConfig
from memory_apps.container import build_container
from memory_apps.hook_wiring import HookWiring
from tests.integration._helpers import (
    PYTHON, TIMEOUT_S, app_env, copy_bank, run_injector, run_module, write_settings,
)

REPO = Path(__file__).resolve().parents[2]
DEMO_BANK = REPO / "examples" / "demo-project" / "docs" / "knowledge-bank"
# What the issue keeps off the hook path: cloud SDKs, mcp, and the heavy config machinery.
NEVER_ON_THE_HOOK_PATH = {"pydantic", "pydantic_core", "dependency_injector", "yaml", "asyncio", "starlette",
                          "mcp", "httpx", "google", "openai", "voyageai", "anthropic"}
SETTINGS = MemoryConfig(vector_weight=0.6, keyword_weight=0.1, prominence_weight=0.3, embedding_provider="local",
                        keyword_provider="off")


def test_hook_wiring_builds_what_the_container_builds(tmp_path):
    """Same store file and options, same weights, same use case: the hook is not a second configuration."""
    wiring = HookWiring(SETTINGS, str(tmp_path))
    container = build_container(SETTINGS, str(tmp_path), hook_path=True)
    for key in ("db_path", "global_store", "fts5", "full_check", "busy_timeout_ms", "busy_retries", "model_cache",
                "write_model_cache",
                "vector_weight", "keyword_weight", "prominence_weight", "embedding_provider", "embedding_model"):
        assert getattr(wiring.config, key)() == getattr(container.config, key)(), key
    ours, theirs = wiring.store(), container.store()
    assert type(ours) is type(theirs)
    assert (ours.path, ours._busy_timeout_ms, ours._busy_retries, ours.keyword_search_available) == (
        theirs.path, theirs._busy_timeout_ms, theirs._busy_retries, theirs.keyword_search_available)
    assert wiring.store() is ours  # built once, like the container's singleton
    assert wiring.weights() == container.weights()
    assert type(wiring.retrieve()) is type(container.retrieve())
    ours_builder, theirs_builder = wiring.embedder_builder(), container.embedder_builder()
    assert (ours_builder.func, ours_builder.keywords) == (theirs_builder.func, theirs_builder.keywords)
    assert ours_builder.keywords == {"model_cache": str(tmp_path / "models"), "write_model_cache": False}
    assert type(wiring.context_source()) is type(container.context_source())
    assert type(wiring.importer()) is type(container.importer())
    assert type(wiring.shared_work()) is type(container.shared_work())
    assert wiring.shared_work().global_store == container.shared_work().global_store
    assert type(wiring.session_start()) is type(container.session_start())
    ours.close()
    theirs.close()


def imported_modules(project: Path, store: Path, home: Path) -> tuple[set[str], str]:
    """Top-level packages a real `python -m memory_apps.injector` process imports, and its stdout."""
    result = subprocess.run(
        [PYTHON, "-X", "importtime", "-m", "memory_apps.injector", "--project-root", str(project),
         "--global-store", str(store)],
        env=app_env(home), cwd=str(home), capture_output=True, text=True, timeout=TIMEOUT_S,
    )
    names = {line.rsplit("|", 1)[-1].strip().split(".")[0]
             for line in result.stderr.splitlines() if line.startswith("import time:") and "|" in line}
    return names, result.stdout


@pytest.mark.parametrize("provider, allowed_heavy", [("none", set()), ("local", {"numpy"})])
def test_a_session_start_imports_only_what_its_path_needs(tmp_path, provider, allowed_heavy):
    project, store, home = tmp_path / "project", tmp_path / "store", tmp_path / "home"
    home.mkdir()
    copy_bank(DEMO_BANK, project)
    write_settings(project, embedding_provider=provider)
    feature = project / "docs" / "features" / "001-parser"
    feature.mkdir(parents=True)
    (feature / ".meta.json").write_text('{"status": "active", "slug": "parser", "lastCompletedPhase": "design"}')
    (feature / "spec.md").write_text("Parse the knowledge bank markdown and validate every header field.\n")
    first = run_injector(project, store, home)  # first session: imports the markdown (pydantic validates it)
    assert first.returncode == 0 and "## Engineering Memory" in first.stdout
    if provider == "local" and "semantic: active" not in first.stdout:  # too busy to load the model in time:
        run_module("memory_apps.cli", ["maintain", "--project-root", project, "--global-store", store], home)

    names, block = imported_modules(project, store, home)

    assert "## Engineering Memory" in block
    assert ("semantic: active" if provider == "local" else "semantic: off") in block
    assert names & NEVER_ON_THE_HOOK_PATH == set()
    assert names & ({"numpy", "onnxruntime", "tokenizers"} - allowed_heavy) == set(), \
        "an unchanged context reuses its cached query vector: the model is not even imported"
