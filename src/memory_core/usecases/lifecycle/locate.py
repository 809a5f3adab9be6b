"""What an id a person typed names, live or not: a live entry (perhaps through an edit that gave it a new id) or
a retired one (ADR 26). `show` and `restore` need both; the other commands take live entries only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from memory_core.entries.records import Entry, RetiredEntry
from memory_core.policies.entry_ids import ID_LENGTH, SHOWN_CANDIDATES, AmbiguousId, check_entry_id
from memory_core.ports.entry_lifecycle import EntryLifecycle
from memory_core.ports.entry_store import EntryStore


@dataclass(frozen=True)
class Located:
    """The entry an id names now: live (`entry`) or retired (`retired`); `edited_from` is the typed id when an
    edit replaced it."""

    entry_id: str
    entry: Optional[Entry] = None
    retired: Optional[RetiredEntry] = None
    edited_from: Optional[str] = None


def locate(store: EntryStore, lifecycle: EntryLifecycle, text: object) -> Optional[Located]:
    """The live or retired entry `text` (an id or unique prefix, old ids of edited entries included) names, or
    None; InvalidEntry for a malformed id, AmbiguousId for a prefix several ids share."""
    value = check_entry_id(text)
    found = _full_id(store, lifecycle, value)
    if found is None:
        return None
    current = lifecycle.resolve(found)
    edited_from = found if current != found else None
    entry = store.get(current)
    if entry is not None:
        return Located(current, entry=entry, edited_from=edited_from)
    retired = lifecycle.retired(current)
    return Located(current, retired=retired, edited_from=edited_from) if retired is not None else None


def _full_id(store: EntryStore, lifecycle: EntryLifecycle, value: str) -> Optional[str]:
    if len(value) == ID_LENGTH:
        return value
    live = store.ids_with_prefix(value, SHOWN_CANDIDATES + 1)
    if len(live) > 1:
        raise AmbiguousId(value, live[:SHOWN_CANDIDATES])
    # Not live: an id only a retired entry or an edit's alias still carries (the cold path, so a full scan).
    others = sorted({r.entry.id for r in lifecycle.retired_entries()} | set(lifecycle.aliases()))
    matches = live + [i for i in others if i.startswith(value) and i not in live]
    if len(matches) > 1:
        raise AmbiguousId(value, matches[:SHOWN_CANDIDATES])
    return matches[0] if matches else None
