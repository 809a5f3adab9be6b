"""Import knowledge-bank markdown into the store, idempotently."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Optional

from pydantic import ValidationError

from memory_core.keyword_tiers import TieredKeywords
from memory_core.knowledge import KnowledgeEntry
from memory_core.legacy import deduplicate
from memory_core.ports.clock import Clock
from memory_core.ports.entry_store import EntryStore
from memory_core.ports.knowledge_bank import KnowledgeBankReader

LOCAL_BANK = os.path.join("docs", "knowledge-bank")


@dataclass
class ImportReport:
    """How many parsed entries were new, updated, unchanged, skipped or merged as duplicates."""

    new: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped: int = 0
    duplicates: int = 0
    deleted: int = 0
    """Entries the user deleted earlier: never brought back by an import."""
    problems: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        """Entries that reached the store."""
        return self.new + self.updated + self.unchanged


def read_sources(reader: KnowledgeBankReader, project_root: str, global_store: str) -> list[KnowledgeEntry]:
    """Parse the project's knowledge bank, then the global store (local entries first)."""
    return reader.read(os.path.join(project_root, LOCAL_BANK), "local") + reader.read(global_store, "global")


class ImportKnowledgeBank:
    """Brings markdown entries into the store; re-importing the same files changes nothing."""

    def __init__(self, reader: KnowledgeBankReader, store: EntryStore, clock: Clock,
                 keywords: Optional[TieredKeywords] = None) -> None:
        self._reader = reader
        self._store = store
        self._clock = clock
        self._keywords = keywords

    def run(self, project_root: str, global_store: str) -> ImportReport:
        """Import local `docs/knowledge-bank/*.md` and `global_store/*.md`."""
        parsed = read_sources(self._reader, project_root, global_store)
        unique = deduplicate(parsed)
        report = ImportReport(duplicates=len(parsed) - len(unique))
        project = os.path.basename(os.path.abspath(project_root))
        now = self._clock.now()
        items = []
        for entry in unique:
            try:
                draft = entry.to_draft(project if entry.origin == "local" else None)
            except ValidationError as exc:
                report.skipped += 1
                field_name = exc.errors()[0]["loc"][0] if exc.errors() else "entry"
                report.problems.append(f"skipped '{entry.name}' ({entry.category}): invalid {field_name}")
                continue
            if self._keywords is not None and not draft.keywords:
                draft = draft.model_copy(update={"keywords": self._keywords.generate(
                    draft.name, draft.description, draft.reasoning, draft.category)})
            items.append((draft, entry.last_observed))
        for outcome in self._store.import_entries(items, now):
            setattr(report, outcome.status, getattr(report, outcome.status) + 1)
        return report
