"""Entries as they appear in knowledge-bank markdown, before they reach the database."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Literal, Optional

from pydantic import BaseModel, Field

from memory_core.anchors.anchor import Anchor
from memory_core.entries.hashing import content_hash
from memory_core.entries.models import Category, Confidence, EntryDraft, Source
from memory_core.entries.records import Entry

Origin = Literal["local", "global"]
REBUILT_FIELDS = ("name", "description", "reasoning", "category", "keywords", "references", "observation_count",
                  "confidence", "source_project")
"""The fields an import brings back from markdown exactly (with the id and, to the second, the update time; and
the anchors, from the global store's markdown)."""


class KnowledgeEntry(BaseModel):
    """One `### ` entry of a knowledge-bank file, with everything the legacy injector needs."""

    name: str
    category: Category
    description: str
    raw_text: str
    observation_count: int = 1
    confidence: Confidence = "medium"
    position: int = 0
    last_observed: Optional[datetime] = None
    origin: Origin = "local"
    keywords: list[str] = Field(default_factory=list)
    details: list[str] = Field(default_factory=list)
    """Metadata bullets other than the tracked fields (Observed in, Cost, Instead, ...)."""
    reasoning: Optional[str] = None
    references: list[str] = Field(default_factory=list)
    source_project: Optional[str] = None
    universal: bool = False
    """The block is tagged `universal`: it belongs to no project, even in a project's own knowledge bank."""
    source: Optional[Source] = None
    """How the entry was first stored (`- Entry source:`, written by export); None: `import`."""
    scope: Optional[str] = None
    """The one project whose sessions see it (`- Scope:`, written by export for a scoped entry)."""
    anchors: tuple[Anchor, ...] = ()
    """Where its references pointed (`- Anchors:`, written in the global store's markdown and by export)."""

    @property
    def entry_id(self) -> str:
        """The content hash of the description."""
        return content_hash(self.description)

    def project(self, default: Optional[str]) -> Optional[str]:
        """The entry's project: the one it names, none when universal, else `default` (the bank's project)."""
        if self.source_project is not None:
            return self.source_project
        return None if self.universal else default

    def to_draft(self, source_project: Optional[str]) -> EntryDraft:
        """Map this markdown entry to a database draft with `source: import` (`source_project`: the default)."""
        return EntryDraft(
            name=self.name,
            description=self.description,
            reasoning="\n".join(([self.reasoning] if self.reasoning else []) + self.details),
            references=self.references,
            category=self.category,
            keywords=self.keywords,
            confidence=self.confidence,
            source=self.source or "import",
            source_project=self.project(source_project),
            observation_count=self.observation_count,
        )

    def rebuilds(self, entry: Entry, source_project: Optional[str]) -> bool:
        """Whether importing this markdown gives back `entry`: every field, its update time to the second."""
        try:
            draft = self.to_draft(source_project)
        except ValueError:  # pydantic's ValidationError: the importer would skip it
            return False
        when = entry.updated_at.astimezone(timezone.utc).replace(microsecond=0)
        anchored = self.origin != "global" or self.anchors == tuple(entry.anchors)  # a bank's form has none
        return (draft.entry_id == entry.id and self.last_observed == when and anchored and all(
            getattr(draft, name) == getattr(entry, name) for name in REBUILT_FIELDS))
