"""The lifecycle tables' values as both SQL stores keep them: a whole entry as JSON (a retired one), history
details as JSON, times as the store hands them back (SQLite's ISO text, PostgreSQL's datetimes). What is read
back is stored text like any other: a retired entry is rebuilt through the shared row reader (validated, redacted)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any, Optional

from memory_adapters.store.sql.rows import FIELDS, anchors_json, dumps, from_text, row_entry
from memory_core.entries.records import Entry, HistoryEvent, RetiredEntry

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def iso(when: Optional[datetime]) -> Optional[str]:
    """ISO 8601 UTC to the second with a Z, as every store keeps its times (None stays None)."""
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def time_of(value: Any) -> datetime:
    """A stored time (a datetime from PostgreSQL, ISO text from SQLite) as an aware datetime; the epoch if
    unreadable."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    return from_text(value if isinstance(value, str) else None) or _EPOCH


def loaded(value: Any) -> Any:
    """A JSON column's value (text from SQLite, already parsed from PostgreSQL's jsonb); None if unreadable."""
    if isinstance(value, (str, bytes)):
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value


def detail_json(detail: dict) -> str:
    """A history event's detail as JSON text, keys sorted so an event written twice compares equal."""
    return json.dumps(detail, ensure_ascii=False, sort_keys=True, default=str)


def entry_json(entry: Entry, extra_scopes: tuple[str, ...] = ()) -> str:
    """The whole entry as JSON: every field, anchors as their dicts, times as ISO text; `extra_scopes` are the
    other projects whose sessions saw it (entry_scopes)."""
    data = {name: getattr(entry, name) for name in FIELDS if name not in ("has_embedding", "anchors")}
    data.update(keywords=list(entry.keywords), references=list(entry.references),
                created_at=iso(entry.created_at), updated_at=iso(entry.updated_at),
                last_recalled_at=iso(entry.last_recalled_at),
                anchors=[anchor.to_dict() for anchor in entry.anchors], extra_scopes=sorted(extra_scopes))
    return json.dumps(data, ensure_ascii=False, sort_keys=True)


def entry_from_json(value: Any) -> Optional[tuple[Entry, tuple[str, ...]]]:
    """The entry `entry_json` wrote and its extra scopes; None when it cannot be made a valid entry."""
    data = loaded(value)
    if not isinstance(data, dict):
        return None
    row = []
    for name in FIELDS:
        item = data.get(name)
        if name in ("keywords", "references"):
            item = dumps([str(v) for v in item]) if isinstance(item, list) else None
        elif name == "anchors":
            item = anchors_json(()) if not isinstance(item, list) else json.dumps(item)
        elif name == "has_embedding":
            item = 0
        elif isinstance(item, (dict, list)):
            item = None  # a hand-edited field of the wrong shape: the row reader rejects or defaults it
        row.append(item)
    entry = row_entry(tuple(row))
    if entry is None:
        return None
    scopes = data.get("extra_scopes")
    return entry, tuple(s for s in scopes if isinstance(s, str)) if isinstance(scopes, list) else ()


def retired_of(row: tuple) -> Optional[RetiredEntry]:
    """A retired entry from (entry JSON, retired_at, reason, superseded_by); None if its entry is unreadable."""
    found = entry_from_json(row[0])
    if found is None:
        return None
    return RetiredEntry(found[0], time_of(row[1]), row[2] or "", row[3] or None)


def event_of(row: tuple) -> HistoryEvent:
    """A history event from (entry_id, action, at, actor, detail)."""
    detail = loaded(row[4])
    return HistoryEvent(str(row[0]), str(row[1]), time_of(row[2]), str(row[3] or ""),
                        detail if isinstance(detail, dict) else {})
