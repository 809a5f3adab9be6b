"""Reads write nothing (issue 21, doorways 3 and 8): `search`, `list`, `show`, `stats` and `export` inside a
project do not import its knowledge bank, a session whose project directory is gone records no import, and a
library read of a store that does not exist refuses instead of creating one."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from tests._helpers import run_module, write_settings

DEMO_PROJECT = Path(__file__).resolve().parents[2] / "examples" / "demo-project"
ELSEWHERE = {"name": "Pin the lockfile", "category": "heuristics",
             "description": "Commit the lockfile so every machine installs the same versions."}


def _metadata_keys(store: Path) -> list[str]:
    with sqlite3.connect(store / "memory.db") as conn:
        return [row[0] for row in conn.execute("SELECT key FROM _metadata")]


@pytest.fixture
def layout(tmp_path, isolated_home, run) -> tuple[Path, Path]:
    """(a project with the 12-entry demo bank, never imported; a store holding one entry written elsewhere)."""
    project = tmp_path / "demo-project"
    shutil.copytree(DEMO_PROJECT, project)
    write_settings(project, embedding_provider="none")
    other = tmp_path / "other"
    other.mkdir()
    write_settings(other, embedding_provider="none")
    store = tmp_path / "G"
    status, _, err = run("write", "--project-root", other, "--global-store", store, "--entry-json",
                         json.dumps(ELSEWHERE))
    assert status == 0, err
    return project, store


@pytest.mark.parametrize("command", [["search", "--json", "deploy", "friday"], ["list", "--json"],
                                     ["stats", "--json"], ["show", "0000000000000000"]])
def test_a_read_inside_a_project_does_not_import_its_bank(layout, run, command):
    project, store = layout
    run(*command, "--project-root", project, "--global-store", store)
    status, out, err = run("list", "--json", "--project-root", project, "--global-store", store)
    assert status == 0, err
    assert [e["name"] for e in json.loads(out)] == [ELSEWHERE["name"]], "the read imported the project's bank"
    assert f"imported:{project}" not in _metadata_keys(store)


def test_export_inside_a_project_exports_only_the_store(layout, run, tmp_path):
    project, store = layout
    status, out, err = run("export", "--json", "--output", tmp_path / "out", "--project-root", project,
                           "--global-store", store)
    assert status == 0, err
    assert json.loads(out)["entries"] == 1
    assert f"imported:{project}" not in _metadata_keys(store)


def test_a_session_start_still_imports_the_bank(layout, isolated_home):
    """The session start is what imports a project's bank (and marks it imported)."""
    project, store = layout
    result = run_module("memory_apps.cli", ["inject", "--project-root", project, "--global-store", store],
                        isolated_home, env={"IFLOW_MEMORY_SESSION_DEADLINE_S": "60"})
    assert result.returncode == 0, result.stderr
    assert f"imported:{project}" in _metadata_keys(store)


def test_a_hook_for_a_missing_directory_records_nothing(layout, isolated_home, tmp_path):
    _, store = layout
    gone = tmp_path / "deleted-project"
    event = json.dumps({"source": "startup", "cwd": str(gone)})
    result = run_module("memory_apps.cli", ["hook", "session-start", "--global-store", store], isolated_home,
                        stdin=event, env={"CLAUDE_PROJECT_DIR": None, "IFLOW_MEMORY_SESSION_DEADLINE_S": "60"})
    assert result.returncode == 0
    answer = json.loads(result.stdout)
    assert answer["hookSpecificOutput"]["additionalContext"] == ""
    assert f"{gone} does not exist" in result.stderr
    assert f"imported:{gone}" not in _metadata_keys(store)
    assert not gone.exists()


def test_library_read_of_a_mistyped_store_refuses_and_creates_nothing(layout, tmp_path):
    from memory_apps import MemoryService
    from memory_core.errors import StoreNotFound

    project, _ = layout
    typo = tmp_path / "G-typo"
    memory = MemoryService(global_store=str(typo), project_root=str(project))
    with pytest.raises(StoreNotFound, match="no memory store at"):
        memory.search("deploy on friday")
    with pytest.raises(StoreNotFound):
        memory.entries()
    assert not typo.exists()
    memory.close()


def test_library_write_creates_the_store(layout, tmp_path):
    from memory_apps import MemoryService

    project, _ = layout
    fresh = tmp_path / "G-new"
    with MemoryService(global_store=str(fresh), project_root=str(project)) as memory:
        memory.remember("Quote CSV fields", "Quote CSV fields that contain delimiters or newlines.")
        assert [e.name for e in memory.entries()] == ["Quote CSV fields"]
        assert [r.entry.name for r in memory.search("quote csv fields").selected] == ["Quote CSV fields"]
    assert (fresh / "memory.db").is_file()
