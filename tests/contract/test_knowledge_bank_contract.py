"""KnowledgeBankReader contract, plus the markdown parser rules of spec 002 and the real fixtures."""

from __future__ import annotations

import pytest

from memory_adapters.markdown.knowledge_bank import MarkdownKnowledgeBankReader
from memory_core.entries.knowledge import KnowledgeEntry
from memory_core.entries.models import CATEGORIES
from memory_core.ports import KnowledgeBankReader
from tests.conftest import shared_fixture
from tests.fakes import FakeKnowledgeBankReader

ANTI_PATTERNS = """# Anti-Patterns

Things we learned not to do.

### Anti-Pattern: Premature Caching
Caching before measuring made the bug hunt slower.
It hid the real bottleneck.
- Observed in: Feature #12
- Confidence: high
- Observation count: 3
- Last observed: 2026-01-05

<!-- Example format:
### Anti-Pattern: Commented Out Example
Not a real entry.
- Observation count: 9
-->

### Anti-Pattern: Silent Fallbacks
Swallowing errors in fallbacks hides outages.
- Observed in: Feature #20
"""

PATTERNS = """# Patterns

### Pattern: Early Interface Definition
Define interfaces before implementation.
- Keywords: ["interfaces", "parallel-work"]
- Confidence: LOW
"""

HEURISTICS = """# Heuristics

### When to Split a Service
Split when the piece has its own lifecycle.
- Observation count: 2
"""


def write_bank(directory) -> str:
    """Write the three category files plus a constitution into `directory`; return its path."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "anti-patterns.md").write_text(ANTI_PATTERNS, encoding="utf-8")
    (directory / "patterns.md").write_text(PATTERNS, encoding="utf-8")
    (directory / "heuristics.md").write_text(HEURISTICS, encoding="utf-8")
    (directory / "constitution.md").write_text("# Constitution\n\n### Core Principles\n- be kind\n")
    return str(directory)


class KnowledgeBankReaderContract:
    """Behaviour every KnowledgeBankReader must show; `make_reader` returns (reader, directory with entries)."""

    def make_reader(self, tmp_path) -> tuple[object, str]:
        raise NotImplementedError

    def test_is_a_knowledge_bank_reader(self, tmp_path):
        reader, _ = self.make_reader(tmp_path)
        assert isinstance(reader, KnowledgeBankReader)

    @pytest.mark.parametrize("origin", ["local", "global"])
    def test_entries_carry_the_requested_origin(self, tmp_path, origin):
        reader, directory = self.make_reader(tmp_path)
        entries = reader.read(directory, origin)
        assert entries
        assert all(isinstance(e, KnowledgeEntry) and e.origin == origin for e in entries)
        assert all(e.category in CATEGORIES and e.description for e in entries)

    def test_missing_directory_yields_nothing(self, tmp_path):
        reader, _ = self.make_reader(tmp_path)
        assert reader.read(str(tmp_path / "does-not-exist"), "local") == []


class TestMarkdownKnowledgeBankReader(KnowledgeBankReaderContract):
    def make_reader(self, tmp_path):
        return MarkdownKnowledgeBankReader(), write_bank(tmp_path / "bank")

    @pytest.fixture
    def entries(self, tmp_path):
        return {e.name: e for e in MarkdownKnowledgeBankReader().read(write_bank(tmp_path / "bank"), "local")}

    def test_all_three_header_styles_give_bare_names(self, entries):
        assert set(entries) == {"Premature Caching", "Silent Fallbacks", "Early Interface Definition",
                                "When to Split a Service"}
        assert entries["Premature Caching"].category == "anti-patterns"
        assert entries["Early Interface Definition"].category == "patterns"
        assert entries["When to Split a Service"].category == "heuristics"

    def test_categories_in_file_order(self, tmp_path):
        entries = MarkdownKnowledgeBankReader().read(write_bank(tmp_path / "bank"), "local")
        assert [(e.category, e.position) for e in entries] == [
            ("anti-patterns", 0), ("anti-patterns", 1), ("heuristics", 0), ("patterns", 0)]

    def test_description_is_the_text_before_the_first_bullet(self, entries):
        assert entries["Premature Caching"].description == (
            "Caching before measuring made the bug hunt slower.\nIt hid the real bottleneck.")
        assert entries["Silent Fallbacks"].description == "Swallowing errors in fallbacks hides outages."

    def test_observation_count_and_confidence_with_defaults(self, entries):
        assert (entries["Premature Caching"].observation_count, entries["Premature Caching"].confidence) == (3, "high")
        assert (entries["Silent Fallbacks"].observation_count, entries["Silent Fallbacks"].confidence) == (1, "medium")
        assert entries["When to Split a Service"].observation_count == 2
        assert entries["Early Interface Definition"].confidence == "low"

    def test_keywords_last_observed_and_details(self, entries):
        assert entries["Early Interface Definition"].keywords == ["interfaces", "parallel-work"]
        caching = entries["Premature Caching"]
        assert caching.last_observed is not None and caching.last_observed.year == 2026
        assert caching.details == ["- Observed in: Feature #12"]

    def test_headers_inside_html_comments_are_ignored(self, entries):
        assert "Commented Out Example" not in entries
        assert all("Not a real entry" not in e.raw_text for e in entries.values())

    def test_constitution_and_other_markdown_are_skipped(self, tmp_path, capsys):
        directory = tmp_path / "bank"
        directory.mkdir()
        (directory / "constitution.md").write_text("### Core\nBe kind.\n")
        (directory / "notes.md").write_text("### Scratch\nNot a category.\n")
        assert MarkdownKnowledgeBankReader().read(str(directory), "local") == []
        assert "constitution.md" in capsys.readouterr().err

    def test_missing_category_files_are_fine(self, tmp_path):
        directory = tmp_path / "bank"
        directory.mkdir()
        (directory / "heuristics.md").write_text(HEURISTICS)
        assert [e.name for e in MarkdownKnowledgeBankReader().read(str(directory), "local")] == [
            "When to Split a Service"]

    def test_draft_keeps_the_content_hash(self, entries):
        entry = entries["Premature Caching"]
        draft = entry.to_draft("proj")
        assert draft.entry_id == entry.entry_id
        assert (draft.source, draft.observation_count, draft.confidence) == ("import", 3, "high")


class TestFakeKnowledgeBankReader(KnowledgeBankReaderContract):
    def make_reader(self, tmp_path):
        directory = str(tmp_path / "bank")
        entry = KnowledgeEntry(name="Retry", category="heuristics", description="Retry with jitter.",
                               raw_text="### Retry\nRetry with jitter.", origin="local")
        return FakeKnowledgeBankReader({directory: [entry]}), directory


class TestRealKnowledgeBankFixture:
    """The knowledge bank shipped in ../shared/fixtures parses completely."""

    @pytest.fixture
    def entries(self):
        directory = shared_fixture("knowledge-bank", "head")
        return MarkdownKnowledgeBankReader(warn_unknown=False).read(str(directory), "local")

    def test_every_header_outside_comment_examples_is_an_entry(self, entries):
        directory = shared_fixture("knowledge-bank", "head")
        headers = sum(
            line.startswith("### ")
            for name in ("anti-patterns.md", "heuristics.md", "patterns.md")
            for line in (directory / name).read_text(encoding="utf-8").split("\n")
        )
        assert headers == 268
        assert len(entries) == 265  # three `### ` lines sit inside `<!-- Example format: -->` blocks

    def test_every_entry_has_a_description_and_a_category(self, entries):
        assert all(e.description.strip() for e in entries)
        assert {e.category for e in entries} == set(CATEGORIES)

    def test_inline_html_comment_text_stays_in_the_description(self, entries):
        sync = [e for e in entries if e.name == "SYNC Markers for Copy-Paste Cross-File Consistency"]
        assert len(sync) == 1 and "<!-- SYNC: enriched-doc-dispatch -->" in sync[0].description
