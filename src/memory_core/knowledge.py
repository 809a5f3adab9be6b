"""Entries as they appear in knowledge-bank markdown, before they reach the database."""

from __future__ import annotations

from datetime import datetime
from typing import Literal, Optional

from pydantic import BaseModel, Field

from memory_core.hashing import content_hash
from memory_core.models import Category, Confidence, EntryDraft

Origin = Literal["local", "global"]


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

    @property
    def entry_id(self) -> str:
        """The content hash of the description."""
        return content_hash(self.description)

    def to_draft(self, source_project: Optional[str]) -> EntryDraft:
        """Map this markdown entry to a database draft with `source: import`."""
        return EntryDraft(
            name=self.name,
            description=self.description,
            reasoning="\n".join(([self.reasoning] if self.reasoning else []) + self.details),
            references=self.references,
            category=self.category,
            keywords=self.keywords,
            confidence=self.confidence,
            source="import",
            source_project=self.source_project or source_project,
            observation_count=self.observation_count,
        )
