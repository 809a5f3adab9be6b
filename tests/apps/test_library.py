"""Library use, in process, as the README's "Use it as a library" section shows it: storing, searching and
injecting on both stores (`backend`: the database URL in this process's environment); the bounds of a request are
checked before any store is read, so those tests stay SQLite's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memory_core.errors import InvalidEntry
from memory_core.entries.hashing import content_hash
from memory_core.entries.request_checks import MAX_LIMIT
from tests._helpers import entry_headers, write_active_feature, write_settings
from tests._learnings import remember_unrelated

pytestmark = pytest.mark.slow

README = Path(__file__).resolve().parents[2] / "README.md"
QUOTE_CSV = {
    "name": "Quote CSV fields",
    "description": "Quote CSV fields that contain delimiters or newlines.",
    "reasoning": "Unquoted commas shifted every column of the bank export.",
    "category": "patterns",
    "references": ["src/export.py"],
}
EXPORT_SPEC = """# Spec: spreadsheet export

Let users download their bank transactions as a spreadsheet file that opens cleanly in Excel and
LibreOffice, including payees whose names contain commas, quotes or line breaks.

## Requirements

- Every exported row has the same number of columns.
"""


@pytest.fixture
def on_backend(isolated_home, backend, monkeypatch):
    """`backend` for services built in this process: its database URL in this process's environment."""
    for key, value in backend.env.items():
        monkeypatch.setenv(key, value)
    return backend


@pytest.fixture
def memory(tmp_path, on_backend):
    from memory_apps import MemoryService

    project = tmp_path / "bank-app"
    project.mkdir()
    return MemoryService(global_store=str(tmp_path / "global-store"), project_root=str(project))


def test_remember_search_and_inject(memory, tmp_path):
    stored = memory.remember(QUOTE_CSV["name"], QUOTE_CSV["description"], reasoning=QUOTE_CSV["reasoning"],
                             category=QUOTE_CSV["category"], references=QUOTE_CSV["references"])
    remember_unrelated(memory)

    assert stored.entry_id == content_hash(QUOTE_CSV["description"])
    assert stored.created is True and stored.observation_count == 1 and stored.embedded is True
    entry = memory.get(stored.entry_id)
    assert entry is not None and entry.source_project == "bank-app" and entry.references == QUOTE_CSV["references"]
    assert 3 <= len(entry.keywords) <= 10

    hits = memory.search("writing spreadsheet exports", limit=5).selected
    assert hits and hits[0].entry.id == stored.entry_id, [(h.entry.name, h.score) for h in hits]
    assert len(hits) <= 5

    write_active_feature(Path(memory.project_root), "003-spreadsheet-export", "spreadsheet-export", EXPORT_SPEC)
    block = memory.inject(limit=5)
    assert block.startswith("## Engineering Memory (from knowledge bank)")
    headers = entry_headers(block)
    assert len(headers) == 5
    assert any(QUOTE_CSV["name"] in h for h in headers), block
    assert QUOTE_CSV["description"] in block

    again = memory.remember(QUOTE_CSV["name"], QUOTE_CSV["description"], reasoning=QUOTE_CSV["reasoning"],
                            category="patterns")
    assert (again.entry_id, again.created, again.observation_count) == (stored.entry_id, False, 2)


@pytest.mark.parametrize(
    "change, field",
    [({"category": "tips"}, "category"), ({"name": ""}, "name"), ({"description": "  "}, "description")],
    ids=["category", "name", "description"],
)
def test_invalid_input_raises_invalid_entry_naming_the_field(memory, change, field):
    arguments = dict(QUOTE_CSV, **change)

    with pytest.raises(InvalidEntry) as caught:
        memory.remember(arguments["name"], arguments["description"], reasoning=arguments["reasoning"],
                        category=arguments["category"], references=arguments["references"])

    assert caught.value.field == field
    assert field in str(caught.value)
    assert "http" not in caught.value.message and "Input should" not in caught.value.message, caught.value.message
    assert not Path(memory.global_store).exists(), "nothing is stored: a refused write creates no store"


def test_search_with_an_invalid_category_raises(memory):
    with pytest.raises(InvalidEntry) as caught:
        memory.search("anything", category="tips")
    assert caught.value.field == "category"


@pytest.fixture
def keywords_only(tmp_path, isolated_home):
    """A service with no embedding provider (no model to load) holding one learning."""
    from memory_apps import MemoryService

    project = tmp_path / "csv-app"
    project.mkdir()
    write_settings(project, embedding_provider="none")
    service = MemoryService(global_store=str(tmp_path / "store"), project_root=str(project))
    service.remember(QUOTE_CSV["name"], QUOTE_CSV["description"], reasoning=QUOTE_CSV["reasoning"])
    return service


@pytest.mark.parametrize(
    "limit, message",
    [(0, "must be at least 1"), (-5, "must be at least 1"), (MAX_LIMIT + 1, f"must be at most {MAX_LIMIT}"),
     ("5", "must be a whole number")],
    ids=["zero", "negative", "too-big", "text"],
)
def test_search_and_inject_refuse_a_limit_outside_the_bounds(keywords_only, limit, message):
    for door in (lambda: keywords_only.search("csv export", limit=limit), lambda: keywords_only.inject(limit=limit)):
        with pytest.raises(InvalidEntry) as caught:
            door()
        assert (caught.value.field, caught.value.message) == ("limit", message)


@pytest.mark.parametrize("query", ["", "   ", "\n\t"], ids=["empty", "spaces", "whitespace"])
def test_search_refuses_a_blank_query(keywords_only, query):
    with pytest.raises(InvalidEntry) as caught:
        keywords_only.search(query)

    assert (caught.value.field, caught.value.message) == ("query", "must not be empty")


def test_the_bounds_themselves_are_accepted(keywords_only):
    assert [h.entry.name for h in keywords_only.search("  csv export  ", limit=1).selected] == [QUOTE_CSV["name"]]
    assert len(keywords_only.search("csv export", limit=MAX_LIMIT).selected) == 1
    assert QUOTE_CSV["description"] in keywords_only.inject(limit=MAX_LIMIT)


def test_readme_library_example_runs(tmp_path, on_backend, capsys):
    text = README.read_text(encoding="utf-8")
    section = re.search(r"^## Use it as a library\n(.*?)(?=^## )", text, re.M | re.S)
    assert section, "README has a library section"
    code = re.search(r"```python\n(.*?)```", section.group(1), re.S)
    assert code, "the library section has a python example"
    project = tmp_path / "project"
    project.mkdir()
    source = code.group(1)
    assert 'global_store="~/.claude/iflow/memory"' in source and 'project_root="."' in source
    source = source.replace('global_store="~/.claude/iflow/memory"', f"global_store={str(tmp_path / 'g')!r}")
    source = source.replace('project_root="."', f"project_root={str(project)!r}")

    exec(compile(source, "README.md", "exec"), {})

    out = capsys.readouterr().out
    assert "Quote CSV fields" in out.splitlines()[0], out
    assert "## Engineering Memory (from knowledge bank)" in out
    assert on_backend.holds_store(tmp_path / "g")
