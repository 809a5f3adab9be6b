"""The session-start hook's wiring (the recipes resolved without dependency-injector) ranks, prints and imports
as a user expects, and the hook's process stays lean (ADR 10, ADR 24)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memory_apps.config import load_config
from memory_apps.session.injection import InjectRequest, run_injection
from memory_apps.upkeep.embedding_jobs import embed_everything
from memory_apps.upkeep.opening import open_store_recovering
from memory_apps.wiring.container import build_container
from memory_apps.wiring.resolver import hook_wiring
from memory_core.session.deadline import Deadline, MonotonicTicker
from tests._helpers import (
    PYTHON, TIMEOUT_S, app_env, copy_bank, diagnostic_line, entry_headers, run_injector, run_module, write_settings,
)

REPO = Path(__file__).resolve().parents[2]
DEMO_BANK = REPO / "examples" / "demo-project" / "docs" / "knowledge-bank"
# What the issue keeps off the hook path: cloud SDKs, mcp, and the heavy config machinery.
NEVER_ON_THE_HOOK_PATH = {"pydantic", "pydantic_core", "dependency_injector", "yaml", "asyncio", "starlette",
                          "mcp", "httpx", "google", "openai", "voyageai", "anthropic"}
LIMIT = 8
SEARCHES = ("parsing csv files with quoted fields", "deploy rollback")


def demo_project(root: Path, **settings: object) -> Path:
    """The demo bank in a project with an active feature (so sessions have a context query)."""
    project = root / "project"
    copy_bank(DEMO_BANK, project)
    write_settings(project, **settings)
    feature = project / "docs" / "features" / "001-parser"
    feature.mkdir(parents=True)
    (feature / ".meta.json").write_text('{"status": "active", "slug": "parser", "lastCompletedPhase": "design"}')
    (feature / "spec.md").write_text("Parse the knowledge bank markdown and validate every header field.\n")
    return project


def session_block(project: Path, store: Path) -> str:
    """The block one session start through the hook's wiring produces; nothing counts as shown."""
    blocks: list[str] = []

    def emit(block: str) -> bool:
        blocks.append(block)
        return False

    wired = hook_wiring(load_config(str(project)), str(store))
    run_injection(InjectRequest(str(project), str(store), LIMIT), load_config(str(project)), lambda: wired,
                  Deadline.after(MonotonicTicker(), 60.0), emit)
    wired.store().close()
    return blocks[0]


def prepared_store(root: Path, project: Path, embed: bool) -> Path:
    """A store with the project's bank imported (and embedded), every connection closed."""
    store = root / "prepared"
    container = build_container(load_config(str(project)), str(store), project_root=str(project))
    open_store_recovering(container, str(project), str(store))
    if embed:
        report, problem = embed_everything(container)
        assert report is not None and report.embedded == 12, problem
    container.store().close()
    return store


def ranked_names(project: Path, store: Path, query: str) -> list[str]:
    """The names a search through the hook's wiring ranks for `query`, best first."""
    wired = hook_wiring(load_config(str(project)), str(store))
    names = [hit.entry.name for hit in wired.retrieval().search(query, 12).selected]
    wired.store().close()
    return names


@pytest.mark.parametrize("provider", ["none", "local"])
def test_the_hook_ranks_and_prints_the_demo_bank(tmp_path, isolated_home, provider):
    project = demo_project(tmp_path, embedding_provider=provider)
    store = prepared_store(tmp_path, project, embed=provider == "local")

    block = session_block(project, store)
    rankings = {query: ranked_names(project, store, query) for query in SEARCHES}

    assert len(entry_headers(block)) == LIMIT
    assert ("semantic: active" if provider == "local" else "semantic: off") in diagnostic_line(block)
    assert all(len(names) == 12 for names in rankings.values())
    assert any("deploy" in name.lower() for name in rankings["deploy rollback"][:3]), rankings["deploy rollback"]


def test_a_first_session_through_the_hook_imports_the_whole_bank(tmp_path, isolated_home):
    project = demo_project(tmp_path, embedding_provider="none")
    store = tmp_path / "first"

    block = session_block(project, store)
    reader = build_container(load_config(str(project)), str(store)).store()
    entries = reader.all_entries()
    reader.close()

    assert len(entry_headers(block)) == LIMIT and len(entries) == 12
    assert all(entry.keywords for entry in entries), "imported entries are labelled by the local keyword tier"


@pytest.mark.parametrize("settings, problem", [
    ({"embedding_provider": "local", "embedding_model": "/nonexistent/model-dir"},
     "local unavailable: local model directory /nonexistent/model-dir not found"),
    ({"embedding_provider": "gemini"}, "gemini unavailable"),
])
def test_an_unusable_provider_is_named_in_the_hooks_diagnostic_line(tmp_path, isolated_home, monkeypatch,
                                                                    settings, problem):
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    project = demo_project(tmp_path, **settings)
    store = prepared_store(tmp_path, project, embed=False)

    line = diagnostic_line(session_block(project, store))

    assert problem in line and "semantic: off" in line


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
    store, home = tmp_path / "store", tmp_path / "home"
    home.mkdir()
    project = demo_project(tmp_path, embedding_provider=provider)
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
