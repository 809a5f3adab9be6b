"""The history of the store's entries as markdown, `<global store>/entry-history.md` (ADR 26): one JSON line per
event, written whole from the database's history after each change, so a rebuild gets back every event, every
retired entry (a `retired` event carries it whole), every restored bank entry whose block is gone (its `restored`
event carries it whole: no markdown holds it) and every alias (an `edited` event names the old and new id)."""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timezone
from typing import Any, Mapping, NamedTuple, Optional, Sequence

from memory_adapters.fs.safe_files import PRIVATE, atomic_write_text, read_text_no_follow
from memory_adapters.markdown.knowledge_bank import HISTORY_FILE
from memory_core.anchors.anchor import Anchor
from memory_core.entries.records import HISTORY_ACTIONS, Entry, HistoryEvent, RetiredEntry

FILENAME = HISTORY_FILE
HEADER = ("# Entry history\n\nEvery edit, retirement, restore, supersession, confirmation and merge of the entries "
          "in this store, oldest first,\none JSON line each; a retired entry is kept whole in its `retired` event. "
          "A rebuild of the database reads it back.\nManaged by iflow-memory: do not edit.\n\n")
HISTORY_LIMIT = 256 << 20  # retired entries ride along whole: far above one bank file's cap
_ID = re.compile(r"^[0-9a-f]{16}$")
KEPT = "retired_entry"  # the key of a retiring event's detail that carries the entry whole (this file's only)
LIVE = "restored_entry"  # the key of a `restored` event's detail that carries a live entry whole (this file's only)
_RETIRING = ("retired", "superseded")  # either may carry the entry (the store records `retired` for both)


class HistoryFile(NamedTuple):
    """What a history file holds: its events, the entries retired at its end, old id -> newest id, and the
    entries live at its end that only their `restored` event carries."""

    events: list[HistoryEvent]
    retired: list[RetiredEntry]
    aliases: dict[str, str]
    restored: Sequence[Entry] = ()


def history_path(store_dir: str) -> str:
    """Where the history of the store in `store_dir` is kept."""
    return os.path.join(store_dir, FILENAME)


def _when(value: Any) -> Optional[datetime]:
    if not isinstance(value, str):
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def _z(when: datetime) -> str:
    return when.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def entry_json(entry: Entry) -> dict[str, Any]:
    """An entry as plain JSON data (dates in UTC with a Z, anchors as their dicts, no vector flag)."""
    data = entry.to_dict()
    data.pop("has_embedding", None)  # a restored entry is embedded again
    for name in ("created_at", "updated_at", "last_recalled_at"):
        data[name] = None if data[name] is None else _z(data[name])
    data["anchors"] = [anchor.to_dict() for anchor in entry.anchors]
    return data


def _strings(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("not a list of strings")
    return value


def entry_from_json(data: Any) -> Entry:
    """The entry `entry_json` wrote; ValueError when the data is not a sound entry (its id must be its text's
    content hash, its fields those a writer validates)."""
    from memory_core.entries.models import EntryDraft

    if not isinstance(data, Mapping):
        raise ValueError("not an object")
    created, updated = _when(data.get("created_at")), _when(data.get("updated_at"))
    recalled = data.get("last_recalled_at")
    if created is None or updated is None or (recalled is not None and _when(recalled) is None):
        raise ValueError("bad dates")
    counts = [data.get("observation_count", 1), data.get("recall_count", 0)]
    if not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in counts):
        raise ValueError("bad counts")
    anchors = data.get("anchors") or []
    if not isinstance(anchors, list):
        raise ValueError("bad anchors")
    draft = EntryDraft(name=data.get("name"), description=data.get("description"),
                       reasoning=data.get("reasoning") or "", category=data.get("category"),
                       keywords=_strings(data.get("keywords", [])), references=_strings(data.get("references", [])),
                       confidence=data.get("confidence", "medium"), source=data.get("source", "manual"),
                       source_project=data.get("source_project"), scope=data.get("scope"),
                       observation_count=max(1, counts[0]))  # pydantic's ValidationError is a ValueError
    if data.get("id") != draft.entry_id:
        raise ValueError("the id is not the content hash of the description")
    return Entry.from_draft(draft, updated).with_changes(
        created_at=created, recall_count=counts[1], last_recalled_at=_when(recalled), anchors=_anchors(anchors))


def _anchors(values: list) -> tuple[Anchor, ...]:
    """The items that are anchors (a bad one is left out, not the entry)."""
    found = []
    for value in values:
        try:
            found.append(Anchor.from_dict(value))
        except (ValueError, AttributeError, TypeError):
            continue
    return tuple(found)


def _line(event: HistoryEvent) -> str:
    data = {"entry_id": event.entry_id, "action": event.action, "at": _z(event.at), "actor": event.actor,
            "detail": event.detail}
    return "- " + json.dumps(data, ensure_ascii=False, default=str)


def _event(line: str) -> Optional[HistoryEvent]:
    """One line's event, or None for anything else (a malformed or hand-made line is skipped, never fatal)."""
    if not line.startswith("- {"):
        return None
    try:
        data = json.loads(line[2:])
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    entry_id, action, at, actor = data.get("entry_id"), data.get("action"), _when(data.get("at")), data.get("actor")
    detail = data.get("detail", {})
    if not (isinstance(entry_id, str) and _ID.match(entry_id) and action in HISTORY_ACTIONS and at is not None
            and isinstance(actor, str) and isinstance(detail, dict)):
        return None
    return HistoryEvent(entry_id, action, at, actor, detail)


def _with_entries(events: Sequence[HistoryEvent], retired: Sequence[RetiredEntry],
                  restored: Sequence[Entry] = ()) -> list[HistoryEvent]:
    """The events, each still-retired entry carried whole (under KEPT) by its latest retiring event, and each
    entry of `restored` (under LIVE) by its latest `restored` event."""
    still = {r.entry.id: r for r in retired}
    live = {e.id: e for e in restored}
    latest = {e.entry_id: i for i, e in enumerate(events) if e.action in _RETIRING and e.entry_id in still}
    back = {e.entry_id: i for i, e in enumerate(events) if e.action == "restored" and e.entry_id in live}
    out = [HistoryEvent(e.entry_id, e.action, e.at, e.actor, _own(e.detail)) for e in events]
    for entry_id, i in latest.items():
        kept = still[entry_id]
        carried = {"entry": entry_json(kept.entry), "retired_at": _z(kept.retired_at), "reason": kept.reason,
                   "superseded_by": kept.superseded_by}
        event = out[i]
        out[i] = HistoryEvent(event.entry_id, event.action, event.at, event.actor, {**event.detail, KEPT: carried})
    for entry_id, i in back.items():
        event = out[i]
        out[i] = HistoryEvent(event.entry_id, event.action, event.at, event.actor,
                              {**event.detail, LIVE: entry_json(live[entry_id])})
    return out


def _own(detail: Mapping[str, Any]) -> dict[str, Any]:
    """An event's detail as the database keeps it: without what this file adds (a rebuilt event equals its own)."""
    return {key: value for key, value in detail.items() if key not in (KEPT, LIVE)}


def history_text(events: Sequence[HistoryEvent], retired: Sequence[RetiredEntry] = (),
                 restored: Sequence[Entry] = ()) -> str:
    """The whole file: the header, then one line per event, oldest first."""
    return HEADER + "".join(_line(event) + "\n" for event in _with_entries(events, retired, restored))


def write_history(store_dir: str, events: Sequence[HistoryEvent], retired: Sequence[RetiredEntry] = (),
                  restored: Sequence[Entry] = ()) -> str:
    """Replace the history file (atomically, private, never through a link; call under the markdown lock);
    `retired`: the entries retired now, each written whole into its latest `retired` event; `restored`: live
    entries no markdown holds, each written whole into its latest `restored` event. Returns its path."""
    path = history_path(store_dir)
    atomic_write_text(path, history_text(events, retired, restored), mode=PRIVATE)
    return path


def _read_text(store_dir: str) -> str:
    try:
        return read_text_no_follow(history_path(store_dir), HISTORY_LIMIT)
    except FileNotFoundError:
        return ""


def count_events(store_dir: str) -> int:
    """How many event lines the history file holds (0 without one): cheap, nothing parsed."""
    return sum(1 for line in _read_text(store_dir).split("\n") if line.startswith("- {"))


def _newest(aliases: dict[str, str], entry_id: str) -> str:
    seen = {entry_id}
    while entry_id in aliases and aliases[entry_id] not in seen:  # a cycle in a tampered file stops here
        entry_id = aliases[entry_id]
        seen.add(entry_id)
    return entry_id


def _kept(event: HistoryEvent) -> Optional[RetiredEntry]:
    """The entry a retiring event carries whole, or None (none carried, or not a sound entry of this id)."""
    carried = event.detail.get(KEPT)
    if event.action not in _RETIRING or not isinstance(carried, dict):
        return None
    try:
        entry = entry_from_json(carried.get("entry"))
    except ValueError:
        return None
    by, reason = carried.get("superseded_by"), carried.get("reason")
    return RetiredEntry(entry, _when(carried.get("retired_at")) or event.at, reason if isinstance(reason, str) else "",
                        by if isinstance(by, str) and _ID.match(by) else None) if entry.id == event.entry_id else None


def _live(event: HistoryEvent) -> Optional[Entry]:
    """The live entry a `restored` event carries whole, or None (none carried, or not a sound entry of this id)."""
    carried = event.detail.get(LIVE)
    if event.action != "restored" or carried is None:
        return None
    try:
        entry = entry_from_json(carried)
    except ValueError:
        return None
    return entry if entry.id == event.entry_id else None


def parse_history(text: str) -> HistoryFile:
    """The events of a history file's text (each detail as the database keeps it), the entries retired after
    the last of them, the aliases (old id -> newest id) and the entries live after the last of them that their
    `restored` event carries."""
    read = [event for event in map(_event, text.split("\n")) if event is not None]
    retired: dict[str, RetiredEntry] = {}
    live: dict[str, Entry] = {}
    edits: dict[str, str] = {}
    for event in read:
        kept = _kept(event)
        if kept is not None:
            retired[event.entry_id] = kept
        if event.action in _RETIRING:
            live.pop(event.entry_id, None)
        elif event.action == "restored":
            retired.pop(event.entry_id, None)
            back = _live(event)
            if back is not None:
                live[event.entry_id] = back
        elif event.action == "edited":
            old, new = event.detail.get("old_id"), event.detail.get("new_id")
            if isinstance(old, str) and isinstance(new, str) and _ID.match(old) and _ID.match(new) and old != new:
                edits[old] = new
                edits.pop(new, None)  # an edit undone (A -> B -> A): A is nobody's old id any more
                live.pop(old, None)  # edited away: the new id is stored, from its own markdown
    events = [HistoryEvent(e.entry_id, e.action, e.at, e.actor, _own(e.detail)) for e in read]
    aliases = {old: _newest(edits, old) for old in edits}
    return HistoryFile(events, sorted(retired.values(), key=lambda r: r.retired_at, reverse=True),
                       {old: new for old, new in aliases.items() if old != new}, list(live.values()))


def read_history(store_dir: str) -> HistoryFile:
    """The store's history file read back (empty without one); a line that is not an event is skipped."""
    return parse_history(_read_text(store_dir))
