"""The Memory page's view model: an entry's text, scope, provenance, counts, references with their state,
history and retirement. Pure: no Starlette."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Mapping, Optional, Sequence

from memory_apps.web.views.scopes import SeenBy, seen_by
from memory_core.anchors.states import AnchorState
from memory_core.entries.records import Entry, HistoryEvent, RetiredEntry
from memory_core.safety.inert import one_line, strip_controls

NOT_CHECKED = "not checked"
DETAIL_ORDER = ("fields", "old_id", "new_id")


@dataclass
class ReferenceView:
    """One reference and how it stands in this project's tree today (`not checked`: no anchor of this project)."""

    text: str
    state: str = NOT_CHECKED
    moved_to: Optional[str] = None


@dataclass
class EventView:
    """One history line: when, who, what, and the details in words."""

    at: str
    actor: str
    action: str
    detail: str


@dataclass
class MemoryView:
    """What the Memory template shows."""

    entry: Entry
    live: bool
    seen_by: SeenBy
    references: list[ReferenceView]
    history: list[EventView]
    created: str
    updated: str
    last_shown: str
    retired_at: Optional[str] = None
    retired_reason: str = ""
    superseded_by: Optional[str] = None
    keywords: str = ""
    form: dict = field(default_factory=dict)
    """The edit form's prefilled values."""


def moment(value: Optional[datetime]) -> str:
    """A timestamp in UTC, to the minute ("" for none)."""
    return value.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC") if value else ""


def references(entry: Entry, states: Sequence[AnchorState]) -> list[ReferenceView]:
    """Each reference with its checked state; a checked anchor whose reference the entry no longer lists is
    shown too (the check judged it)."""
    by_reference = {s.reference: s for s in states}
    shown = [ReferenceView(r, by_reference[r].state, by_reference[r].moved_to) if r in by_reference
             else ReferenceView(r) for r in entry.references]
    listed = set(entry.references)
    return shown + [ReferenceView(s.reference, s.state, s.moved_to) for s in states if s.reference not in listed]


def event(event: HistoryEvent) -> EventView:
    """A history event in words, as `show` prints it: a list as its items (`fields: description, reasoning`),
    an edit's ids only when the edit gave a new one."""
    detail = dict(event.detail or {})
    if detail.get("old_id") is not None and detail.get("old_id") == detail.get("new_id"):
        del detail["old_id"], detail["new_id"]
    first = [key for key in DETAIL_ORDER if key in detail]  # what changed, then the ids, then the rest
    text = "; ".join(f"{key}: {_value(detail[key])}" for key in first + [k for k in detail if k not in first])
    return EventView(moment(event.at), event.actor, event.action, text)


def _value(value: object) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value))
    return "" if value is None else str(value)


def edit_form(entry: Entry) -> dict:
    """The edit (and supersede) form's starting values: keywords comma-separated, references one per line;
    control and bidi characters dropped, as everywhere on the page (saving the form stores the text as shown)."""
    return {"name": one_line(entry.name), "description": strip_controls(entry.description),
            "reasoning": strip_controls(entry.reasoning), "category": entry.category,
            "confidence": entry.confidence, "keywords": one_line(", ".join(entry.keywords)),
            "references": "\n".join(one_line(r) for r in entry.references)}


def memory_view(entry: Entry, retired: Optional[RetiredEntry], states: Sequence[AnchorState],
                history: Sequence[HistoryEvent], names: Optional[Mapping[str, str]] = None) -> MemoryView:
    """The view of a live entry (`retired` None) or a retired one; `names` names the projects kept entries stay
    in (their bank records)."""
    view = MemoryView(entry, retired is None, seen_by(entry.scope, names), references(entry, states),
                      [event(e) for e in history], moment(entry.created_at), moment(entry.updated_at),
                      moment(entry.last_recalled_at) or "never", keywords=", ".join(entry.keywords),
                      form=edit_form(entry))
    if retired is not None:
        view.retired_at = moment(retired.retired_at)
        view.retired_reason = retired.reason
        view.superseded_by = retired.superseded_by
    return view


def states_of(citations: Mapping[str, Sequence[AnchorState]], entry_id: str) -> list[AnchorState]:
    """The checked states of one entry's citations (none when it has no anchor of this project)."""
    return list(citations.get(entry_id, ()))
