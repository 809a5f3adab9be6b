"""Import knowledge-bank markdown into the store, idempotently."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from pydantic import ValidationError

from memory_core.deadline import Deadline
from memory_core.first_import import import_marker, is_imported
from memory_core.keyword_tiers import TieredKeywords
from memory_core.knowledge import KnowledgeEntry
from memory_core.legacy import deduplicate, shown_text
from memory_core.ports.clock import Clock
from memory_core.ports.entry_store import EntryStore
from memory_core.ports.knowledge_bank import KnowledgeBankReader
from memory_core.ports.project_layout import ProjectLayout

IMPORT_BATCH = 100  # entries per committed transaction: an interrupted import keeps every finished batch


@dataclass
class ImportReport:
    """How many parsed entries were new, updated, unchanged, skipped or merged as duplicates."""

    new: int = 0
    updated: int = 0
    unchanged: int = 0
    problems: list[str] = field(default_factory=list)
    """Why entries were skipped, one line each; the counts below are the entries left out."""
    skipped: int = 0
    duplicates: int = 0
    deleted: int = 0
    """Entries the user deleted earlier: never brought back by an import."""
    remaining: int = 0
    """Parsed entries not imported yet because the deadline came first (a later run resumes)."""

    @property
    def complete(self) -> bool:
        """True when every parsed entry was handled."""
        return self.remaining == 0

    @property
    def total(self) -> int:
        """Entries that reached the store."""
        return self.new + self.updated + self.unchanged


def read_sources(reader: KnowledgeBankReader, project_bank: str, global_store: str) -> list[KnowledgeEntry]:
    """Parse the project's knowledge bank (the directory `project_bank`), then the global store (local first)."""
    return reader.read(project_bank, "local") + reader.read(global_store, "global")


class ImportKnowledgeBank:
    """Brings markdown entries into the store; re-importing the same files changes nothing."""

    def __init__(self, reader: KnowledgeBankReader, store: EntryStore, clock: Clock, layout: ProjectLayout,
                 keywords: Optional[TieredKeywords] = None) -> None:
        self._reader = reader
        self._store = store
        self._clock = clock
        self._layout = layout
        self._keywords = keywords

    def imported(self, project_root: str) -> bool:
        """Whether this project's knowledge bank was fully imported into a non-empty store."""
        return is_imported(self._store, project_root)

    def run(self, project_root: str, global_store: str, deadline: Optional[Deadline] = None,
            batch_size: int = IMPORT_BATCH) -> ImportReport:
        """Import the project's knowledge bank and the global store's markdown in committed batches (local first).

        With a deadline, batches stop once it passed (the first batch always runs, so every call makes
        progress); re-running resumes, because entries already stored are left unchanged."""
        parsed = read_sources(self._reader, self._layout.knowledge_bank(project_root), global_store)
        unique = deduplicate(parsed)
        report = ImportReport(duplicates=len(parsed) - len(unique))
        project = self._layout.name(project_root)
        now = self._clock.now()
        scope = self._layout.identity(project_root)
        todo = self._not_yet_stored(unique, report, scope)
        size = max(1, batch_size)
        for start in range(0, len(todo), size):
            if start and deadline is not None and deadline.expired():
                report.remaining = len(todo) - start
                break
            items = self._drafts(todo[start:start + size], project, report, scope)
            for outcome in self._store.import_entries(items, now):
                setattr(report, outcome.status, getattr(report, outcome.status) + 1)
        if report.complete:
            self._store.set_metadata(import_marker(project_root), now.strftime("%Y-%m-%dT%H:%M:%SZ"))
        return report

    def _not_yet_stored(self, entries: list[KnowledgeEntry], report: ImportReport,
                        scope: str) -> list[KnowledgeEntry]:
        """Entries an import would change; the others count as unchanged without a write, so a resumed import
        starts where the last one stopped. An entry this bank holds that is stored for another project (a copy
        of the project, the same learning in two banks) becomes this project's too."""
        stored: dict[str, object] = {}
        for start in range(0, len(entries), 500):
            stored.update((e.id, e) for e in self._store.get_many([k.entry_id for k in entries[start:start + 500]]))
        todo = []
        for entry in entries:
            known = stored.get(entry.entry_id)
            could_label = bool(entry.keywords) or self._keywords is not None
            if known is not None and entry.origin == "local" and known.scope not in (None, scope):
                self._store.add_scope(known.id, scope)
            if known is None or entry.observation_count > known.observation_count or (
                    could_label and not known.keywords) or (entry.origin == "global" and known.scope is not None):
                todo.append(entry)
            else:
                report.unchanged += 1
        return todo

    def _drafts(self, batch: list[KnowledgeEntry], project: str, report: ImportReport, scope: str) -> list:
        """Validated drafts; keywords are generated only for entries the store does not already label.

        A project's own bank is scoped to that project whatever its text claims (a cloned repository's bank
        must not reach other projects' sessions); only the global store's markdown is universal."""
        labelled = {e.id for e in self._store.get_many([k.entry_id for k in batch]) if e.keywords}
        items = []
        for entry in batch:
            try:
                draft = entry.to_draft(project if entry.origin == "local" else None)
            except ValidationError as exc:
                report.skipped += 1
                field_name = exc.errors()[0]["loc"][0] if exc.errors() else "entry"
                name = shown_text(entry.name)  # hand-written markdown: its name never passed the validators
                report.problems.append(f"skipped '{name}' ({entry.category}): invalid {field_name}")
                continue
            draft = draft.model_copy(update={"scope": scope if entry.origin == "local" else None})
            if self._keywords is not None and not draft.keywords and entry.entry_id not in labelled:
                draft = draft.model_copy(update={"keywords": self._keywords.generate(
                    draft.name, draft.description, draft.reasoning, draft.category)})
            items.append((draft, entry.last_observed))
        return items
