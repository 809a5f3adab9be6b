"""Pydantic models of what enters the system (a writer's entry draft); the records it produces are in
`memory_core.entries.records` and re-exported here."""

from __future__ import annotations

import json
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, field_validator

from memory_core.entries.hashing import content_hash
from memory_core.entries.keywords import MAX_KEYWORDS
from memory_core.entries.records import (  # noqa: F401 - re-exported: the records live beside the models
    CATEGORIES, CONFIDENCE_RANK, Entry, EntryStats, ImportOutcome, UpsertOutcome,
)
from memory_core.safety.redaction import contains_secret, redact_secrets

Category = Literal["anti-patterns", "patterns", "heuristics"]
Confidence = Literal["high", "medium", "low"]
Source = Literal["retro", "session-capture", "manual", "import"]

MAX_REFERENCES = 50
MAX_REFERENCE_LENGTH = 500


def _clean_string_list(value: object, field: str) -> list[str]:
    """Accept a list of strings (or a JSON array string) and drop blanks and duplicates."""
    if value is None:
        return []
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip().startswith("[") else [value]
        except json.JSONDecodeError as exc:
            raise ValueError(f"{field} must be a list of strings") from exc
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{field} must be a list of strings")
    cleaned: list[str] = []
    for item in value:
        if not isinstance(item, str):
            raise ValueError(f"{field} must contain only strings")
        item = item.strip()
        if item and item not in cleaned:
            cleaned.append(item)
    return cleaned


class EntryDraft(BaseModel):
    """What a writer supplies: an entry before it has an id or timestamps."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    name: str = Field(min_length=1, max_length=300)
    description: str = Field(min_length=1, max_length=20_000)
    reasoning: str = Field(default="", max_length=20_000)
    category: Category
    keywords: list[str] = Field(default_factory=list)
    references: list[str] = Field(default_factory=list, max_length=MAX_REFERENCES)
    confidence: Confidence = "medium"
    source: Source = "manual"
    source_project: Optional[str] = None
    scope: Optional[str] = Field(default=None, max_length=300)
    """The project identity whose sessions see the entry; None: every project's (universal)."""
    observation_count: int = Field(default=1, ge=1, le=1_000_000)

    @field_validator("keywords", mode="before")
    @classmethod
    def _keywords(cls, value: object) -> list[str]:
        # A key-shaped label is dropped before lower-casing would hide its shape (e.g. AKIA...).
        # Checked as given and as stored (lower case): a keyword dropped on a second validation is lost on rebuild.
        lowered = [k.lower() for k in _clean_string_list(value, "keywords")
                   if not contains_secret(k) and not contains_secret(k.lower())]
        return list(dict.fromkeys(lowered))[:MAX_KEYWORDS]

    @field_validator("references", mode="before")
    @classmethod
    def _references(cls, value: object) -> list[str]:
        references = _clean_string_list(value, "references")
        if any(len(r) > MAX_REFERENCE_LENGTH for r in references):
            raise ValueError(f"each reference must be at most {MAX_REFERENCE_LENGTH} characters")
        return [redact_secrets(r) for r in references]

    @field_validator("name", "description")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return redact_secrets(value)

    @field_validator("name")
    @classmethod
    def _one_line(cls, value: str) -> str:
        # A name is a heading: each line break (with the blanks around it) becomes one space (ADR 15).
        return " ".join(part.strip() for part in value.splitlines() if part.strip())

    @field_validator("reasoning", "source_project")
    @classmethod
    def _no_secrets(cls, value: Optional[str]) -> Optional[str]:
        return redact_secrets(value) if value else value

    @property
    def entry_id(self) -> str:
        """The content hash this draft will be stored under."""
        return content_hash(self.description)
