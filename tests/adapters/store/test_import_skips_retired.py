"""An import of markdown that still holds a retired entry, or the old text of an edited one, brings neither back
and counts them (ADR 26): the store answers `retired` and the import's report has a place for it."""

from __future__ import annotations

from datetime import datetime, timezone

from memory_adapters.markdown.audit_trail import MarkdownAuditTrail
from memory_adapters.markdown.knowledge_bank import MarkdownKnowledgeBankReader
from memory_adapters.project.git_project_layout import GitProjectLayout
from memory_adapters.store.sqlite.store import SqliteEntryStore
from memory_core.entries.models import EntryDraft
from memory_core.entries.records import HistoryEvent
from memory_core.usecases.importing import ImportKnowledgeBank
from tests.fakes import FakeClock

T0 = datetime(2026, 3, 1, 12, 30, tzinfo=timezone.utc)


def test_the_global_markdown_of_a_retired_and_an_edited_entry_does_not_revive_them(tmp_path):
    project, store_dir = tmp_path / "proj", tmp_path / "store"
    project.mkdir()
    trail = MarkdownAuditTrail(str(store_dir), str(project))
    store = SqliteEntryStore(str(store_dir / "memory.db"))
    ids = [store.upsert(EntryDraft(name=f"Lesson {n}", description=f"Learning number {n} about parsers.",
                                   category="patterns"), T0).entry_id for n in range(3)]
    for entry_id in ids:
        trail.record(store.get(entry_id))  # the markdown as it was before the retirement and the edit
    store.retire(ids[0], HistoryEvent(ids[0], "retired", T0, "ana via cli"))
    edit = EntryDraft(name="Lesson 1", description="Learning number 1 about parsers, reworded.", category="patterns")
    new_id = store.replace_text(ids[1], edit, HistoryEvent(edit.entry_id, "edited", T0, "ana via cli")).id

    report = ImportKnowledgeBank(MarkdownKnowledgeBankReader(), store, FakeClock(), GitProjectLayout()).run(
        str(project), str(store_dir))

    assert (report.still_retired, report.new) == (2, 0)
    assert {e.id for e in store.all_entries()} == {new_id, ids[2]}
    store.close()
