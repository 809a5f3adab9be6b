"""Near-duplicates at write with the real local model (ADR 26), on both stores (`backend`: numpy over SQLite's
vectors, pgvector's nearest on PostgreSQL): a paraphrase written through the writer names the existing learning
(and is stored all the same), `--merge-into` reinforces the existing one instead, and MCP store_memory returns the
neighbours and takes merge_into."""

from __future__ import annotations

import json

import pytest

from memory_core.entries.hashing import content_hash
from tests._helpers import PYTHON, app_env, model_env, run_in_process, run_module, write_settings
from tests._learnings import learning

pytestmark = pytest.mark.slow

# Learnings of the real bank (../shared/fixtures/knowledge-bank/head), and a hand-written rewording of the first.
ORIGINAL = learning(
    "Specifying a Parser Without a Complete Round-Trip Example",
    "When design describes a parser (fields extracted, splitting logic, metadata structure) but does not include a "
    "fully worked example showing input text and resulting data structure with ALL fields populated, downstream "
    "phases repeatedly discover missing fields or format gaps, causing cascading review iterations.",
    "Feature #023: 3+ extra review iterations across 3 phases as the format was refined piecemeal.", "anti-patterns",
    references=["docs/design.md"])
OTHERS = [
    learning("Hardcoding Year Values in Search Queries",
             "Embedding literal year values (e.g. \"2026\") in search queries or date-sensitive prompts causes silent "
             "degradation as time passes: no error signal, just less relevant results.",
             "Feature #027: the quality reviewer flagged a hardcoded year.", "anti-patterns"),
    learning("INSERT OR IGNORE for Idempotent Entity Registration",
             "For entity registries backed by SQLite, INSERT OR IGNORE provides correct idempotency across backfill "
             "re-runs, server restarts, and duplicate calls without application-level dedup logic.",
             "Feature #029.", "patterns"),
    learning("AskUserQuestion Option Count",
             "Keep AskUserQuestion to 6 explicit options maximum (7 with built-in \"Other\").",
             "Feature #018: the system provides Other for free text.", "heuristics"),
]
PARAPHRASE = learning(
    "Parser designs without one full input-to-output example",
    "A design that describes a parser's fields and splitting rules but shows no complete worked example (input text "
    "and the resulting structure with every field filled) lets later phases keep discovering missing fields and "
    "format gaps, one review iteration at a time.",
    "The format was refined piecemeal across three phases.", "anti-patterns", references=["src/parser.py"])
UNRELATED = learning(
    "Resolve symlinks before the containment check",
    "Checking that a path lies inside the project before resolving its symlinks lets a link inside the project point "
    "outside it; resolve the real path first, then check containment.",
    "A symlink in the docs folder let the tool read a file in the user's home.", "anti-patterns")
ORIGINAL_ID = content_hash(ORIGINAL["description"])


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "service"
    root.mkdir()
    write_settings(root, embedding_provider="local")
    return root


def write(project, store, home, entry, *extra, via_cli=False, process=False):
    args = ["--global-store", store, "--project-root", project, "--no-references-from-git", *extra,
            "--entry-json", json.dumps(entry)]
    module, args = ("memory_apps.cli", ["write", *args]) if via_cli else ("memory_apps.writer", args)
    run = run_module if process else run_in_process
    return run(module, args, home, env=model_env(project.parent))


@pytest.fixture
def seeded(project, tmp_path, isolated_home, backend):
    store = tmp_path / "store"
    for entry in [ORIGINAL, *OTHERS]:
        result = write(project, store, isolated_home, entry)
        assert result.returncode == 0, result.stderr
    return store


def test_a_paraphrase_written_through_the_writer_names_the_existing_learning(project, seeded, isolated_home, backend):
    result = write(project, seeded, isolated_home, PARAPHRASE, "--json", process=True)

    assert result.returncode == 0, result.stderr
    written = json.loads(result.stdout)
    assert written["created"] and not written["merged"]
    assert [(n["id"], n["name"]) for n in written["near_duplicates"]] == [(ORIGINAL_ID, ORIGINAL["name"])]
    assert 0.65 <= written["near_duplicates"][0]["score"] <= 1
    assert f"similar to {ORIGINAL_ID} — {ORIGINAL['name']}" in result.stderr
    assert "--merge-into ID" in result.stderr
    # Advice only: the paraphrase is stored beside the original.
    assert backend.rows(seeded, "SELECT COUNT(*) FROM entries") == [(5,)]


def test_a_different_learning_on_another_topic_is_not_flagged(project, seeded, isolated_home):
    result = write(project, seeded, isolated_home, UNRELATED, "--json", via_cli=True)

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["near_duplicates"] == []
    assert "similar to" not in result.stderr


def test_merge_into_reinforces_the_existing_learning_instead(project, seeded, isolated_home, backend):
    result = write(project, seeded, isolated_home, PARAPHRASE, "--merge-into", ORIGINAL_ID[:6], via_cli=True)

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (f"Merged into: {ORIGINAL['name']} (id: {ORIGINAL_ID}), now observed 2 times")
    assert backend.rows(seeded, "SELECT COUNT(*) FROM entries") == [(4,)]
    [(count, references, description)] = backend.rows(
        seeded, "SELECT observation_count, \"references\", description FROM entries WHERE id = ?", (ORIGINAL_ID,))
    assert (count, json.loads(references), description) == (2, ["docs/design.md", "src/parser.py"],
                                                            ORIGINAL["description"])
    [(action, actor, detail)] = backend.rows(seeded, "SELECT action, actor, detail FROM entry_history")
    assert (action, actor.endswith(" via cli"), json.loads(detail)["from"]) == ("merged", True, PARAPHRASE["name"])


def test_merge_into_an_unknown_entry_stores_nothing(project, seeded, isolated_home, backend):
    result = write(project, seeded, isolated_home, PARAPHRASE, "--merge-into", "0123456789abcdef")

    assert result.returncode == 1
    assert result.stderr.strip().endswith("no entry with id 0123456789abcdef")
    assert backend.rows(seeded, "SELECT COUNT(*) FROM entries") == [(4,)]


def test_mcp_store_memory_returns_the_neighbours_and_merges_when_asked(project, seeded, isolated_home, tmp_path):
    pytest.importorskip("mcp")
    from mcp import StdioServerParameters

    from tests.integration._mcp_client import McpClient

    params = StdioServerParameters(
        command=PYTHON, args=["-m", "memory_apps.cli", "serve", "--global-store", str(seeded), "--project-root",
                              str(project)],
        env=app_env(isolated_home, model_env(tmp_path)), cwd=str(tmp_path))
    arguments = {key: PARAPHRASE[key] for key in ("name", "description", "reasoning", "category")}
    with open(tmp_path / "server-stderr.log", "w", encoding="utf-8") as errlog:
        client = McpClient(params, errlog)
        try:
            stored = client.call("store_memory", arguments)
            merged = client.call("store_memory", {**arguments, "merge_into": ORIGINAL_ID})
            unknown = client.call("store_memory", {**arguments, "merge_into": "0123456789abcdef"})
        finally:
            client.close()

    assert not stored.is_error, stored.content[0].text
    first = stored.structured_content
    assert first["created"] and [n["id"] for n in first["near_duplicates"]] == [ORIGINAL_ID]
    assert f"{ORIGINAL_ID} — {ORIGINAL['name']}" in first["message"] and "merge_into" in first["message"]
    second = merged.structured_content
    assert (second["merged"], second["id"], second["observation_count"]) == (True, ORIGINAL_ID, 2)
    assert unknown.is_error and "no entry with id 0123456789abcdef" in unknown.content[0].text
