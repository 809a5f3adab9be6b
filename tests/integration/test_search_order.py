"""Search results come in the order of the score they show (issue 21, doorway 1): an entry no signal found, but
prominent, can score above a weak keyword match; the CLI's table and --json and the library (which the MCP
server's search_memory calls) still list them best score first. Keyword ranking only, no model. The prominent entry
is no good match (issue 23), so the searches ask for the weak ones too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_apps import cli
from memory_apps.service import MemoryService
from tests._helpers import write_settings

QUERY = "deploy on friday"
BANK = """# Heuristics

### Small Deploy Batches on Friday
Deploy on Friday only in small batches that one person can roll back.
- Observation count: 1
- Confidence: low

### Release Notes Mention the Deploy
Each release note names the deploy it describes, so a rollback finds its notes.
- Observation count: 1
- Confidence: low

### Profile Before Optimising
Measure the slow path with a profiler before changing any code for speed; guesses waste days.
- Observation count: 40
- Confidence: high
"""


@pytest.fixture
def store(tmp_path, isolated_home, capsys) -> tuple[Path, Path]:
    """(project, global store): two keyword matches and a well-worn entry the query does not mention."""
    project = tmp_path / "app"
    (project / "docs" / "knowledge-bank").mkdir(parents=True)
    (project / "docs" / "knowledge-bank" / "heuristics.md").write_text(BANK, encoding="utf-8")
    write_settings(project, embedding_provider="none")
    assert cli.main(["import", "--project-root", str(project), "--global-store", str(tmp_path / "G")]) == 0
    capsys.readouterr()
    return project, tmp_path / "G"


@pytest.mark.parametrize("category", [[], ["--category", "heuristics"]])
def test_cli_search_is_sorted_by_the_score_it_shows(store, capsys, category):
    flags = ["--project-root", str(store[0]), "--global-store", str(store[1]), "--all", *category]

    assert cli.main(["search", *QUERY.split(), *flags, "--json"]) == 0
    shown = [(r["score"], r["name"]) for r in json.loads(capsys.readouterr().out)]
    assert cli.main(["search", *QUERY.split(), *flags]) == 0
    table = [float(line.split()[1]) for line in capsys.readouterr().out.splitlines()[2:] if line.strip()]

    assert len(shown) == 3 and shown[0][1] == "Small Deploy Batches on Friday", shown
    assert [s for s, _ in shown] == sorted((s for s, _ in shown), reverse=True), shown
    assert table == sorted(table, reverse=True) and len(table) == 3


def test_library_search_is_sorted_by_score(store):
    with MemoryService(str(store[1]), str(store[0])) as memory:
        scores = [r.score for r in memory.search(QUERY, 10, "heuristics", include_weak=True).selected]

    assert len(scores) == 3 and scores == sorted(scores, reverse=True), scores


def test_mcp_search_memory_is_sorted_by_score(store, isolated_home, tmp_path):
    pytest.importorskip("mcp", reason="the MCP server needs the mcp package (iflow-memory[mcp])")
    from mcp import StdioServerParameters

    from tests._helpers import PYTHON, app_env
    from tests.integration._mcp_client import McpClient

    project, global_store = store
    params = StdioServerParameters(command=PYTHON, args=["-m", "memory_apps.cli", "serve", "--global-store",
                                                         str(global_store), "--project-root", str(project)],
                                   env=app_env(isolated_home), cwd=str(tmp_path))
    with open(tmp_path / "server-stderr.log", "w", encoding="utf-8") as errlog:
        client = McpClient(params, errlog)
        try:
            result = client.call("search_memory", {"query": QUERY, "limit": 10, "category": "heuristics",
                                                   "include_weak_matches": True})
        finally:
            client.close()

    assert not result.is_error, result.content[0].text
    scores = [hit["score"] for hit in result.structured_content["results"]]
    assert len(scores) == 3 and scores == sorted(scores, reverse=True), scores
