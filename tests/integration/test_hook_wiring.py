"""The session-start hook's wiring behaves as the container does (same block, same ranking, same stored entries
for the same store and settings), and the hook's process stays lean (ADR 10, ADR 21)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from memory_apps.config import load_config
from memory_apps.wiring.container import build_container, embedding_plan, open_store_recovering, retrieval_for
from memory_apps.commands.embedding_jobs import embed_everything
from memory_apps.wiring.hook_wiring import HookWiring
from memory_apps.session.injection import InjectRequest, run_injection
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
WIRINGS = ("hook", "container")
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


def wiring(name: str, project: Path, store: Path):
    """A session start's wiring as the hook builds it, or the container configured as for the hook."""
    settings = load_config(str(project))
    if name == "hook":
        return HookWiring(settings, str(store))
    return build_container(settings, str(store), hook_path=True)


def session_block(project: Path, store: Path, name: str) -> str:
    """The block one session start produces; nothing counts as shown, so no run changes what the next ranks."""
    blocks: list[str] = []

    def emit(block: str) -> bool:
        blocks.append(block)
        return False

    wired = wiring(name, project, store)
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


def copy_of(store: Path, target: Path) -> Path:
    """The database files of a store (not its model cache), so each wiring starts from the same bytes."""
    target.mkdir()
    for path in store.iterdir():
        if path.is_file():
            shutil.copy2(path, target / path.name)
    return target


def ranking(name: str, project: Path, store: Path) -> tuple[list[str], list[float]]:
    """The ids and the scores a search for each of SEARCHES ranks, in order."""
    wired = wiring(name, project, store)
    retrieval = retrieval_for(wired, embedding_plan(wired, want_target=False))
    hits = [hit for query in SEARCHES for hit in retrieval.search(query, 12).selected]
    wired.store().close()
    return [hit.entry.id for hit in hits], [hit.score for hit in hits]


@pytest.mark.parametrize("provider", ["none", "local"])
def test_the_hook_and_the_container_rank_and_print_the_same(tmp_path, isolated_home, provider):
    project = demo_project(tmp_path, embedding_provider=provider)
    store = prepared_store(tmp_path, project, embed=provider == "local")

    blocks = {name: session_block(project, copy_of(store, tmp_path / f"block-{name}"), name) for name in WIRINGS}
    rankings = {name: ranking(name, project, copy_of(store, tmp_path / f"search-{name}")) for name in WIRINGS}

    assert len(entry_headers(blocks["hook"])) == LIMIT
    assert ("semantic: active" if provider == "local" else "semantic: off") in diagnostic_line(blocks["hook"])
    assert blocks["hook"] == blocks["container"]
    (hook_ids, hook_scores), (container_ids, container_scores) = rankings["hook"], rankings["container"]
    assert len(hook_ids) == 12 * len(SEARCHES) and hook_ids == container_ids
    assert hook_scores == pytest.approx(container_scores, abs=1e-6)  # recency moves with the clock between runs


def test_a_first_session_imports_the_same_entries_either_way(tmp_path, isolated_home):
    project = demo_project(tmp_path, embedding_provider="none")
    outcome = {}

    for name in WIRINGS:
        store = tmp_path / f"first-{name}"
        block = session_block(project, store, name)
        reader = build_container(load_config(str(project)), str(store)).store()
        outcome[name] = (block, sorted((e.id, e.category, tuple(e.keywords), e.scope) for e in reader.all_entries()))
        reader.close()

    assert len(entry_headers(outcome["hook"][0])) == LIMIT and len(outcome["hook"][1]) == 12
    assert outcome["hook"] == outcome["container"]


@pytest.mark.parametrize("settings, problem", [
    ({"embedding_provider": "local", "embedding_model": "/nonexistent/model-dir"},
     "local unavailable: local model directory /nonexistent/model-dir not found"),
    ({"embedding_provider": "gemini"}, "gemini unavailable"),
])
def test_an_unusable_provider_is_reported_the_same_either_way(tmp_path, isolated_home, monkeypatch, settings,
                                                              problem):
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    project = demo_project(tmp_path, **settings)
    store = prepared_store(tmp_path, project, embed=False)

    lines = {name: diagnostic_line(session_block(project, copy_of(store, tmp_path / name), name))
             for name in WIRINGS}

    assert problem in lines["hook"]
    assert lines["hook"] == lines["container"]


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
