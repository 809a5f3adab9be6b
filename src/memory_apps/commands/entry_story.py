"""An entry's story for `show` (ADR 26): retired (when, why, what replaced it), edited (the old id it was asked
by), its anchors and its history; shared by `show` and the lifecycle commands."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from memory_apps.formatting import _json_value, fail
from memory_core.errors import InvalidEntry
from memory_core.policies.entry_ids import AmbiguousId
from memory_core.safety.inert import one_line

if TYPE_CHECKING:
    from memory_apps.service import MemoryService


def located(service: MemoryService, text: str) -> tuple[Any, int]:
    """(Located, 0) for an id, unique prefix or an edited entry's old id, live or retired; (None, exit status)
    after saying why not (unknown: `no entry with id ...`)."""
    try:
        found = service.locate(text)
    except AmbiguousId as exc:
        lines = [f"  {i}" for i in exc.candidates]
        return None, fail(f"id prefix {exc.prefix} is ambiguous; the candidates are:\n" + "\n".join(lines))
    except InvalidEntry as exc:
        return None, fail(f"invalid {exc.field}: {one_line(exc.message)}")
    if found is None:
        return None, fail(f"no entry with id {one_line(text)}")
    return found, 0


def event_dict(event: Any) -> dict[str, Any]:
    """A history event as JSON-ready data."""
    return {"entry_id": event.entry_id, "action": event.action, "at": _json_value(event.at), "actor": event.actor,
            "detail": event.detail}


def story_dict(service: MemoryService, found: Any) -> dict[str, Any]:
    """The `show --json` fields beside the entry's own: history, retired, superseded_by, anchors (and the old id
    asked by, when an edit replaced it)."""
    retired = found.retired
    entry = found.entry if found.entry is not None else retired.entry
    data: dict[str, Any] = {
        "anchors": [a.to_dict() for a in entry.anchors],
        "retired": None if retired is None else {"at": _json_value(retired.retired_at), "reason": retired.reason},
        "superseded_by": retired.superseded_by if retired is not None else None,
        "history": [event_dict(e) for e in service.history(found.entry_id)],
    }
    if found.edited_from:
        data["edited_from"] = found.edited_from
    return data


def story_lines(service: MemoryService, found: Any) -> tuple[list[str], list[str]]:
    """The lines `show` prints before the entry (what became of it) and after it (its anchors and history)."""
    retired = found.retired
    entry = found.entry if found.entry is not None else retired.entry
    head, tail = [], []
    if found.edited_from:
        head.append(f"{found.edited_from} was edited: it is now {found.entry_id}")
    if retired is not None:
        why = f": {one_line(retired.reason)}" if retired.reason else ""
        head.append(f"RETIRED {_when(retired.retired_at)}{why} (not injected, not found by search; "
                    f"`iflow-memory restore {entry.id}` brings it back)")
        if retired.superseded_by:
            head.append(f"superseded by {retired.superseded_by} — {_name_of(service, retired.superseded_by)}")
    if entry.anchors:
        tail.append("anchors:")
        tail += [f"  {one_line(a.reference)}  blob {a.blob[:12]}" + (f"  region {a.region[:12]}" if a.region else "")
                 for a in entry.anchors]
    events = service.history(found.entry_id)
    if events:
        tail.append("history:")
        tail += [f"  {_when(e.at)}  {e.action}  {one_line(e.actor)}{_detail(e.detail)}" for e in events]
    return head + ([""] if head else []), ([""] if tail else []) + tail


def _name_of(service: MemoryService, entry_id: str) -> str:
    found = service.locate(entry_id)
    if found is None:
        return "(no longer stored)"
    entry = found.entry if found.entry is not None else found.retired.entry
    return one_line(entry.name) + ("" if found.entry is not None else " (retired too)")


def _when(moment: Any) -> str:
    return str(_json_value(moment))


def _detail(detail: Optional[dict]) -> str:
    if not detail:
        return ""
    parts = [f"{one_line(str(k))}: {one_line(', '.join(map(str, v)) if isinstance(v, list) else str(v))}"
             for k, v in detail.items()]
    return "  (" + "; ".join(parts) + ")"


def list_retired(service: MemoryService, args: Any) -> int:
    """`list --retired`: the retired entries, newest retirement first, with why and what replaced them."""
    from memory_apps.formatting import count_of, dumps, entry_dict, table

    retired = service.retired_entries()
    if args.category:
        retired = [r for r in retired if r.entry.category == args.category]
    if args.json:
        print(dumps([{**entry_dict(r.entry), "retired": {"at": _json_value(r.retired_at), "reason": r.reason},
                      "superseded_by": r.superseded_by} for r in retired]))
        return 0
    rows = [(r.entry.id, r.entry.category, _when(r.retired_at), r.superseded_by or "-", r.reason or "-", r.entry.name)
            for r in retired]
    print(table(["id", "category", "retired", "superseded by", "reason", "name"], rows, [0, 0, 0, 0, 30, 60],
                whole=[0, 1, 3]))
    print(f"\n{count_of(len(retired), 'retired entry', 'retired entries')}")
    return 0
