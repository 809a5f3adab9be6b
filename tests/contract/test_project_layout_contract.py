"""ProjectLayout contract: a project's knowledge bank lies inside it, its name is its directory's, its identity
is stable and tells two projects apart."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from memory_adapters.project.git_project_layout import GitProjectLayout
from memory_adapters.markdown.audit_trail import MarkdownAuditTrail
from memory_adapters.markdown.knowledge_bank import MarkdownKnowledgeBankReader
from memory_core.entries.models import EntryDraft
from memory_core.ports import ProjectLayout
from memory_core.entries.records import Entry
from tests.fakes import FakeProjectLayout


class ProjectLayoutContract:
    """Behaviour every ProjectLayout must show; subclasses supply `make_layout()`."""

    def test_is_a_project_layout(self):
        assert isinstance(self.make_layout(), ProjectLayout)

    def test_the_knowledge_bank_lies_inside_the_project(self, tmp_path):
        root = tmp_path / "csv-app"
        bank = Path(self.make_layout().knowledge_bank(str(root)))
        assert bank != root and bank.is_relative_to(root)

    def test_the_name_is_the_directorys(self, tmp_path):
        assert self.make_layout().name(str(tmp_path / "csv-app")) == "csv-app"

    def test_the_identity_is_stable_and_tells_projects_apart(self, tmp_path):
        layout = self.make_layout()
        first, second = tmp_path / "a" / "app", tmp_path / "b" / "app"
        first.mkdir(parents=True)
        second.mkdir(parents=True)
        assert layout.identity(str(first)) == layout.identity(str(first))
        assert layout.identity(str(first)) != layout.identity(str(second)), "same name, different projects"


class TestGitProjectLayout(ProjectLayoutContract):
    def make_layout(self):
        return GitProjectLayout()

    def test_the_bank_is_where_the_audit_trail_writes_it(self, tmp_path):
        project, store = tmp_path / "proj", tmp_path / "G"
        project.mkdir()
        store.mkdir()
        draft = EntryDraft(name="Pin tools", description="Pin tool versions in CI.", category="patterns",
                           scope="path:" + str(project))
        MarkdownAuditTrail(str(store), str(project)).record(
            Entry.from_draft(draft, datetime(2026, 1, 1, tzinfo=timezone.utc)))
        bank = GitProjectLayout().knowledge_bank(str(project))
        assert [e.name for e in MarkdownKnowledgeBankReader().read(bank, "local")] == ["Pin tools"]
        assert bank == str(project / "docs" / "knowledge-bank")


class TestFakeProjectLayout(ProjectLayoutContract):
    def make_layout(self):
        return FakeProjectLayout()
