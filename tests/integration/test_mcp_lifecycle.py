"""MCP review_memory, confirm_memory, retire_memory, restore_memory and store_memory's `supersedes` (issue 24),
through a real `iflow-memory serve` over stdio on a git project whose cited file is then renamed."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp", reason="the MCP server tests need the mcp package (iflow-memory[mcp])")

from memory_core.entries.hashing import content_hash  # noqa: E402
from tests._helpers import app_env, git, write_settings  # noqa: E402
from tests.integration._mcp_client import Server  # noqa: E402

pytestmark = pytest.mark.slow

SNIFF = {"name": "Sniff the dialect first", "description": "Sniff the CSV dialect before reading a file.",
         "reasoning": "Semicolon exports came out as one column.", "category": "patterns",
         "references": ["src/sniff.py"]}
QUOTE = {"name": "Quote CSV fields", "description": "Quote CSV fields that contain delimiters or newlines.",
         "reasoning": "Unquoted commas shifted every column.", "category": "patterns"}
QUOTE_ALL = {"name": "Quote every CSV field", "description": "Quote every CSV field; the csv module does it with "
             "QUOTE_ALL.", "reasoning": "Quoting only some fields broke a strict importer.", "category": "patterns"}


@pytest.fixture
def server(tmp_path, isolated_home):
    srv = Server(tmp_path)  # its home is isolated_home
    (srv.project / "src").mkdir(parents=True)
    (srv.project / "src" / "sniff.py").write_text("def dialect(sample):\n    return 'excel'\n")
    write_settings(srv.project, embedding_provider="none")
    git(srv.project, "init", "-q")
    git(srv.project, "add", ".")
    git(srv.project, "commit", "-qm", "first")
    with srv.serving(app_env(srv.home), tmp_path):
        yield srv


def ok(server, tool: str, arguments: dict) -> dict:
    result = server.call(tool, arguments)
    assert not result.is_error, result.content[0].text
    return result.structured_content


def test_an_agent_reviews_confirms_retires_restores_and_supersedes(server):
    sniff, quote = server.store_memory(SNIFF)["id"], server.store_memory(QUOTE)["id"]
    assert ok(server, "confirm_memory", {"entry_id": sniff[:6]})["action"] == "confirmed"
    assert ok(server, "review_memory", {})["stale"] == []
    git(server.project, "mv", "src/sniff.py", "src/sniffing.py")
    git(server.project, "commit", "-qm", "rename")

    [stale] = ok(server, "review_memory", {})["stale"]
    assert stale["id"] == sniff
    assert stale["references"] == [{"reference": "src/sniff.py", "state": "moved", "moved_to": "src/sniffing.py",
                                    "note": "cites src/sniff.py, now src/sniffing.py"}]
    assert ok(server, "review_memory", {"queue": "superseded"})["stale"] == [], "one queue asked for"

    retired = ok(server, "retire_memory", {"entry_id": quote, "reason": "covered by the csv module"})
    assert retired["action"] == "retired"
    assert quote not in [hit["id"] for hit in server.search("quote csv fields", include_weak_matches=True)["results"]]
    got = ok(server, "get_memory", {"ids": [quote]})
    assert got["entries"] == [] and got["not_found"] == []
    assert got["retired"][0]["id"] == quote and got["retired"][0]["reason"] == "covered by the csv module"
    again = server.call("retire_memory", {"entry_id": quote})
    assert again.is_error and "retired" in again.content[0].text

    assert ok(server, "restore_memory", {"entry_id": quote[:6]})["action"] == "restored"
    assert quote in [hit["id"] for hit in server.search("quote csv fields", include_weak_matches=True)["results"]]

    stored = ok(server, "store_memory", {**QUOTE_ALL, "supersedes": quote})
    assert stored["id"] == content_hash(QUOTE_ALL["description"]) and stored["superseded"] == quote
    assert "supersedes" in stored["message"]
    superseded = ok(server, "review_memory", {})["superseded"]
    assert superseded == [{"id": quote, "name": "Quote CSV fields", "superseded_by": stored["id"]}]
    assert ok(server, "get_memory", {"ids": [quote]})["retired"][0]["superseded_by"] == stored["id"]

    unknown = server.call("retire_memory", {"entry_id": "0123456789abcdef"})
    assert unknown.is_error and "no entry with id" in unknown.content[0].text
    refused = server.call("store_memory", {**QUOTE_ALL, "description": "Something new.", "supersedes": quote})
    assert refused.is_error and "supersedes" in refused.content[0].text


def test_storing_a_retired_learning_again_is_refused_and_confirm_says_what_is_still_gone(server):
    quote = server.store_memory(QUOTE)["id"]
    ok(server, "retire_memory", {"entry_id": quote, "reason": "covered by the csv module"})

    refused = server.call("store_memory", QUOTE)
    merged = server.call("store_memory", {**QUOTE_ALL, "merge_into": quote[:6]})

    assert refused.is_error and merged.is_error
    for result in (refused, merged):
        text = result.content[0].text
        assert f"{quote} — Quote CSV fields was retired on " in text and "(covered by the csv module)" in text
        assert text.endswith("restore_memory brings it back"), text
    got = ok(server, "get_memory", {"ids": [quote]})
    assert got["entries"] == [] and got["retired"][0]["id"] == quote, "not revived"
    assert ok(server, "get_memory", {"ids": [content_hash(QUOTE_ALL["description"])]})["entries"] == []

    sniff = server.store_memory(SNIFF)["id"]
    git(server.project, "mv", "src/sniff.py", "src/sniffing.py")
    git(server.project, "commit", "-qm", "rename")
    confirmed = ok(server, "confirm_memory", {"entry_id": sniff})
    assert confirmed["message"] == ("Confirmed: confirmed 0 of 1 citation; src/sniff.py is still gone (moved to "
                                    "src/sniffing.py): supersede the learning with the new path, or retire it")
    assert [s["id"] for s in ok(server, "review_memory", {})["stale"]] == [sniff], "its mark stays"
