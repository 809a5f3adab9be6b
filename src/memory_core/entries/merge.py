"""The merge rules, in one place: what a repeated write and an import do to the entry already stored.

Every entry store applies these inside one write transaction (read the row, merge, write it back), so the
rules are the same for SQLite, the test fake and any later backend, and they are property-tested here.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Literal, Optional

from memory_core.entries.records import Entry

if TYPE_CHECKING:
    from memory_core.entries.models import EntryDraft

ImportStatus = Literal["new", "updated", "unchanged", "deleted"]


def reinforced(existing: Optional[Entry], draft: "EntryDraft", now: datetime) -> Entry:
    """The entry after a write: new from the draft, or the stored one seen once more.

    A repeat counts one more observation, takes the draft's name and description (same content hash), and
    overwrites reasoning, keywords, references and confidence only when the writer gave them; recall counts,
    creation time, category and provenance stay. The scope stays when the same project writes it again; written
    as universal, or from another project, the entry becomes universal (it matters beyond one project)."""
    if existing is None:
        return Entry.from_draft(draft, now)
    given = draft.model_fields_set
    changes: dict = {"name": draft.name, "description": draft.description, "updated_at": now,
                     "observation_count": existing.observation_count + 1}
    if draft.reasoning:
        changes["reasoning"] = draft.reasoning
    if "keywords" in given and draft.keywords:
        changes["keywords"] = list(draft.keywords)
    if "references" in given and draft.references:
        changes["references"] = list(draft.references)
    if "confidence" in given:
        changes["confidence"] = draft.confidence
    if draft.scope != existing.scope:
        changes["scope"] = None
    return existing.with_changes(**changes)


def imported(existing: Optional[Entry], draft: "EntryDraft", now: datetime, updated_at: Optional[datetime],
             deleted: bool) -> tuple[ImportStatus, Optional[Entry]]:
    """What importing a markdown entry does: (status, the entry to store, or None to leave the row alone).

    A deleted entry stays deleted; a new one is stored in the draft's scope with `source: import` unless the draft
    names how it was stored (an exported entry coming back); a stored one
    becomes universal when the global store's markdown (a universal draft) lists it, and is never narrowed;
    otherwise it only ever catches up
    with the markdown (a higher observation count brings its confidence and time; missing keywords are filled),
    so importing the same bank twice changes nothing and never counts an observation."""
    if deleted:
        return "deleted", None
    if existing is None:
        source = draft.source if "source" in draft.model_fields_set else "import"
        entry = Entry.from_draft(draft.model_copy(update={"source": source}), now)
        return "new", entry.with_changes(updated_at=updated_at or now)
    changes: dict = {}
    if draft.observation_count > existing.observation_count:
        changes.update(observation_count=draft.observation_count, confidence=draft.confidence,
                       updated_at=updated_at or now)
    if draft.keywords and not existing.keywords:
        changes["keywords"] = list(draft.keywords)
    if draft.scope is None and existing.scope is not None:
        changes["scope"] = None  # the global store's markdown or the user's own bank lists it: universal
    if not changes:
        return "unchanged", None
    return "updated", existing.with_changes(**changes)
