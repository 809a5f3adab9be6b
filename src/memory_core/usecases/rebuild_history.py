"""A rebuild's first step (ADR 26): put back what the markdown's history file keeps (every event, the retired
entries whole, the edits' aliases, the restored bank entries whose block is gone) before any bank is imported, so
no bank revives a retired or edited-away id and a restore outlives its database."""

from __future__ import annotations

from typing import Mapping, Sequence

from memory_core.entries.records import Entry, HistoryEvent, RetiredEntry
from memory_core.ports.entry_lifecycle import EntryLifecycle
from memory_core.ports.entry_store import EntryStore

RETIRING = ("retired", "superseded")


def apply_history_file(store: EntryStore, events: Sequence[HistoryEvent], retired: Sequence[RetiredEntry],
                       aliases: Mapping[str, str], restored: Sequence[Entry] = ()) -> int:
    """Apply a history file to a store that may hold some of it already (an old snapshot put back, a database
    that lost commits): an entry still live there whose last update is older than its retirement is retired
    again (the database lost that retirement; one written again later stays live), and an entry of `restored`
    (live at the file's end) that the store lacks is put back live. Returns how many were retired again."""
    if not isinstance(store, EntryLifecycle) or not (events or retired or aliases or restored):
        return 0
    again = 0
    for kept in retired:
        live = store.get(kept.entry.id)
        if live is None or live.updated_at.replace(microsecond=0) > kept.retired_at:  # stores keep seconds
            continue
        event = next((e for e in reversed(events) if e.entry_id == kept.entry.id and e.action in RETIRING), None)
        if event is not None and store.retire(kept.entry.id, event, kept.superseded_by) is not None:
            again += 1  # the same event: apply_history below finds it recorded and skips it
    store.apply_history(events, retired, aliases, restored)
    return again
