"""Records the system itself produces (stored entries, ranking fields, write outcomes): plain frozen
dataclasses, stdlib only, so the session-start path never pays for pydantic (ADR 10). Input is validated
by the pydantic models in `memory_core.entries.models` before it becomes one of these."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from datetime import datetime
from typing import Any, Literal, NamedTuple, Optional, Protocol

from memory_core.anchors.anchor import Anchor

CATEGORIES: tuple[str, ...] = ("anti-patterns", "heuristics", "patterns")
MIN_PER_CATEGORY = 3
"""The least a selection takes of each category that has entries, when the limit allows (spec 001: min-3 per category)."""
"""Categories in the order the memory block shows them (anti-patterns first, patterns last)."""
CATEGORY_TITLES = {"anti-patterns": "Anti-Patterns", "heuristics": "Heuristics", "patterns": "Patterns"}
"""Each category's title, as knowledge-bank files and the memory block's sections name it."""

CONFIDENCE_RANK = {"high": 3, "medium": 2, "low": 1}
SOURCES = ("retro", "session-capture", "manual", "import")
"""Where an entry came from (the `Source` values the models accept)."""


class ValidatedDraft(Protocol):
    """What `Entry.from_draft` reads of a validated draft (`memory_core.entries.models.EntryDraft`, which imports this
    module: a structural type keeps the two modules out of each other's imports)."""

    @property
    def entry_id(self) -> str:
        """The content hash the entry is stored under."""
        ...

    def model_dump(self) -> dict[str, Any]:
        """Every field of the draft as plain data."""
        ...


@dataclass(frozen=True)
class Entry:
    """A stored memory entry (spec 001 D1), without its embedding vector; validated when it was written."""

    id: str
    name: str
    description: str
    category: str
    created_at: datetime
    updated_at: datetime
    reasoning: str = ""
    keywords: list[str] = field(default_factory=list)
    references: list[str] = field(default_factory=list)
    confidence: str = "medium"
    source: str = "manual"
    source_project: Optional[str] = None
    scope: Optional[str] = None
    """The project identity whose sessions see this entry; None for every project's (universal)."""
    observation_count: int = 1
    recall_count: int = 0
    last_recalled_at: Optional[datetime] = None
    has_embedding: bool = False
    anchors: tuple[Anchor, ...] = ()
    """Where each reference pointed when the entry was written, imported or confirmed (ADR 26)."""

    @classmethod
    def from_draft(cls, draft: ValidatedDraft, now: datetime) -> "Entry":
        """Build a new entry from a validated draft, with its content-hash id and timestamps."""
        return cls(**draft.model_dump(), id=draft.entry_id, created_at=now, updated_at=now)

    def with_changes(self, **changes: Any) -> "Entry":
        """A copy with some fields replaced."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """All fields as plain data (lists copied, datetimes kept)."""
        return asdict(self)


ENTRY_FIELDS = tuple(f.name for f in fields(Entry))


class EntryStats(NamedTuple):
    """The few fields ranking needs, cheap to load for every entry on the hot path: a tuple, so a store can
    build one straight from a result row, with the update time as POSIX seconds (no date parsing)."""

    id: str
    category: str
    observation_count: int
    confidence: str
    recall_count: int
    updated_ts: float
    has_embedding: bool

    @classmethod
    def of(cls, entry: Entry) -> "EntryStats":
        """The ranking fields of a full entry."""
        return cls(entry.id, entry.category, entry.observation_count, entry.confidence, entry.recall_count,
                   entry.updated_at.timestamp(), entry.has_embedding)


HISTORY_ACTIONS = ("edited", "retired", "restored", "superseded", "confirmed", "merged")
"""What a history event records: a new text (a new id), out of injection, back in, replaced by a newer entry,
re-anchored to today's code, reinforced by a near-duplicate written into it."""


@dataclass(frozen=True)
class HistoryEvent:
    """One change in an entry's life (ADR 26): who did what, when, and the details (`detail`, plain JSON data:
    for `edited` {"old_id", "new_id", "old_description"...}, for `superseded` {"by"}, for `retired`
    {"reason"}, for `merged` {"from": the draft's name})."""

    entry_id: str
    action: str
    at: datetime
    actor: str
    """Who: `<user> via <tool>` (cli, mcp, writer, import, library)."""
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RetiredEntry:
    """An entry taken out of injection and search, kept whole so it can be restored (ADR 26)."""

    entry: Entry
    retired_at: datetime
    reason: str = ""
    superseded_by: Optional[str] = None
    """The id of the entry that replaced it (`write --supersedes`)."""


@dataclass(frozen=True)
class UpsertOutcome:
    """What an upsert did: created a row or reinforced an existing one."""

    entry_id: str
    created: bool
    observation_count: int


@dataclass(frozen=True)
class ImportOutcome:
    """What importing one parsed entry did."""

    entry_id: str
    status: Literal["new", "updated", "unchanged", "deleted", "retired"]
    """`retired`: the id was retired (or edited into a newer id): an import never brings it back."""
