"""The MCP tools as a model sees them (issue 13): schemas, annotations, server version and error wording.

Each test talks to the real server through the official client over JSON-RPC (the SDK's in-memory transport
with the initialize handshake, as a stdio client does), with no embedding provider so no model loads.
"""

from __future__ import annotations

import importlib.metadata
import re

import pytest

pytest.importorskip("mcp", reason="the MCP server tests need the mcp package (iflow-memory[mcp])")

import anyio  # noqa: E402
from mcp import Client  # noqa: E402

from memory_core.entries.hashing import content_hash  # noqa: E402
from memory_core.entries.models import CATEGORIES  # noqa: E402
from memory_core.entries.request_checks import MAX_IDS, MAX_LIMIT  # noqa: E402
from tests._helpers import write_settings  # noqa: E402

pytestmark = pytest.mark.slow

LEARNING = {"name": "Quote CSV fields",
            "description": "Quote CSV fields that contain delimiters or newlines.",
            "reasoning": "Unquoted commas shifted every column of the bank export.",
            "category": "patterns"}


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "bank-app"
    root.mkdir()
    write_settings(root, embedding_provider="none")
    return root


@pytest.fixture
def server(tmp_path, project, isolated_home):
    from memory_apps.mcp_server import build_server
    from memory_apps.service import MemoryService

    return build_server(MemoryService(str(tmp_path / "store"), str(project)))


def session(server, conversation):
    """Run `conversation(client)` in one client session (initialize handshake first) and return its result."""

    async def main():
        async with Client(server, mode="legacy") as client:
            return await conversation(client)

    return anyio.run(main)


def tools(server) -> dict:
    async def listing(client):
        return (await client.list_tools()).tools

    return {tool.name: tool for tool in session(server, listing)}


def call(server, tool: str, arguments: dict):
    async def one(client):
        return await client.call_tool(tool, arguments)

    return session(server, one)


def error_text(result) -> str:
    assert result.is_error is True, result
    return "".join(part.text for part in result.content)


def test_category_is_an_enum_of_the_categories(server):
    listed = tools(server)

    store_category = listed["store_memory"].input_schema["properties"]["category"]
    search_category = listed["search_memory"].input_schema["properties"]["category"]

    assert set(store_category["enum"]) == set(CATEGORIES)
    search_enums = [option["enum"] for option in search_category["anyOf"] if "enum" in option]
    assert [set(e) for e in search_enums] == [set(CATEGORIES)], search_category
    assert "category" not in listed["search_memory"].input_schema.get("required", []), "the filter is optional"


def test_every_parameter_has_its_own_description(server):
    for tool in tools(server).values():
        properties = tool.input_schema["properties"]
        assert properties, tool.name
        for name, schema in properties.items():
            assert schema.get("description", "").strip(), f"{tool.name}.{name} has no description"
        descriptions = [p["description"] for p in properties.values()]
        assert len(set(descriptions)) == len(descriptions), f"{tool.name}: each parameter says its own thing"


def test_limit_shows_its_bounds_and_the_server_keeps_them(server):
    limit = tools(server)["search_memory"].input_schema["properties"]["limit"]
    assert (limit["minimum"], limit["maximum"]) == (1, MAX_LIMIT)
    assert limit["type"] == "integer"

    async def probe(client):
        await client.call_tool("store_memory", LEARNING)
        answers = {n: await client.call_tool("search_memory", {"query": "csv export", "limit": n})
                   for n in (limit["minimum"], limit["maximum"], limit["maximum"] + 1, 0, -5)}
        return answers

    answers = session(server, probe)

    assert not answers[1].is_error and len(answers[1].structured_content["results"]) == 1
    assert not answers[MAX_LIMIT].is_error
    for bad in (MAX_LIMIT + 1, 0, -5):
        assert "limit" in error_text(answers[bad]), bad


def test_tools_carry_annotations_that_match_what_they_do(server):
    listed = {name: tool.annotations for name, tool in tools(server).items()}

    assert set(listed) == {"store_memory", "search_memory", "get_memory", "delete_memory", "review_memory",
                           "confirm_memory", "retire_memory", "restore_memory"}
    assert listed["review_memory"].read_only_hint is True, "a review lists; it changes nothing"
    for changes in ("confirm_memory", "retire_memory", "restore_memory"):
        assert listed[changes].read_only_hint is False and listed[changes].destructive_hint is False, changes
    assert listed["confirm_memory"].idempotent_hint is True
    search, store, delete = listed["search_memory"], listed["store_memory"], listed["delete_memory"]
    assert search.read_only_hint is True
    assert listed["get_memory"].read_only_hint is True, "reading a learning records nothing"
    assert store.read_only_hint is False and store.destructive_hint is False
    assert store.idempotent_hint is False, "a repeat counts another observation"
    assert delete.read_only_hint is False and delete.destructive_hint is True and delete.idempotent_hint is True
    assert {a.open_world_hint for a in listed.values()} == {False}, "local memory only"


def test_server_info_reports_the_package_version(server):
    async def handshake(client):
        return client.server_info

    info = session(server, handshake)

    assert info.name == "iflow-memory"
    assert info.version == importlib.metadata.version("iflow-memory")


def test_server_version_falls_back_when_the_package_is_not_installed(monkeypatch):
    from memory_apps import mcp_server

    def not_installed(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)

    assert mcp_server.server_version() == "0+unknown"


@pytest.mark.parametrize(
    "tool, arguments, field",
    [
        ("store_memory", {k: v for k, v in LEARNING.items() if k != "reasoning"}, "reasoning"),
        ("store_memory", {k: v for k, v in LEARNING.items() if k != "category"}, "category"),
        ("store_memory", dict(LEARNING, category="tips"), "category"),
        ("search_memory", {"limit": 5}, "query"),
        ("search_memory", {"query": "csv", "limit": "many"}, "limit"),
        ("delete_memory", {}, "entry_id"),
        ("get_memory", {}, "ids"),
        ("get_memory", {"ids": []}, "ids"),
        ("get_memory", {"ids": ["0123456789abcdef"] * (MAX_IDS + 1)}, "ids"),
        ("get_memory", {"ids": "0123456789abcdef"}, "ids"),
    ],
    ids=["store-no-reasoning", "store-no-category", "store-bad-category", "search-no-query", "search-limit-text",
         "delete-no-id", "get-no-ids", "get-empty-ids", "get-too-many-ids", "get-ids-not-a-list"],
)
def test_a_bad_argument_is_a_short_plain_message_naming_the_field(server, tool, arguments, field):
    text = error_text(call(server, tool, arguments))

    assert re.search(rf"\binvalid {re.escape(field)}: ", text), text
    assert "http" not in text and "pydantic" not in text and "input_value" not in text, text
    assert "\n" not in text and len(text) < 200, text


@pytest.mark.parametrize("query", ["", "   ", "\n\t "], ids=["empty", "spaces", "whitespace"])
def test_a_blank_query_is_refused(server, query):
    assert "invalid query: must not be empty" in error_text(call(server, "search_memory", {"query": query}))


def test_store_description_tells_the_model_what_a_store_writes_and_what_an_entry_is(server, project):
    description = tools(server)["store_memory"].description
    assert "docs/knowledge-bank/" in description and ".md" in description
    assert re.search(r"identity is its description", description), description
    assert "reinforce" in description

    async def store_twice(client):
        first = await client.call_tool("store_memory", LEARNING)
        again = await client.call_tool("store_memory", dict(LEARNING, name="Quote every CSV field"))
        return first.structured_content, again.structured_content

    first, again = session(server, store_twice)

    # What the description promises is what happens.
    assert first["id"] == again["id"] == content_hash(LEARNING["description"])
    assert (again["created"], again["observation_count"]) == (False, 2)
    bank = (project / "docs" / "knowledge-bank" / f"{LEARNING['category']}.md").read_text(encoding="utf-8")
    assert LEARNING["description"] in bank and "Observation count: 2" in bank


def test_include_weak_matches_is_an_optional_documented_flag(server):
    listed = tools(server)["search_memory"]
    flag = listed.input_schema["properties"]["include_weak_matches"]

    assert flag["type"] == "boolean" and flag["default"] is False
    assert "include_weak_matches" not in listed.input_schema.get("required", [])
    assert "floor" in flag["description"]
    assert "include_weak_matches" in listed.description and "good match" in listed.description


def test_nonsense_gets_no_results_and_a_note_unless_weak_matches_are_asked_for(server):
    async def probe(client):
        await client.call_tool("store_memory", LEARNING)
        return [(await client.call_tool("search_memory", arguments)).structured_content for arguments in (
            {"query": "zzzzqqq"}, {"query": "zzzzqqq", "include_weak_matches": True}, {"query": "quote csv fields"})]

    nonsense, weak, real = session(server, probe)

    assert nonsense["results"] == [] and "no stored learning is a good match" in nonsense["note"].lower()
    assert [(hit["name"], hit["good_match"]) for hit in weak["results"]] == [(LEARNING["name"], False)]
    assert weak["note"] == nonsense["note"], "weak results alone still say nothing matched well"
    assert [hit["name"] for hit in real["results"]] == [LEARNING["name"]] and real["note"] is None
    assert real["results"][0]["good_match"] is True and 0 < real["results"][0]["relevance"] <= 1
