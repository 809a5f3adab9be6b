"""A small in-memory EntryLifecycle over InMemoryEntryStore, for the lifecycle use cases' unit tests."""

from __future__ import annotations

from typing import Optional

from memory_core.entries.records import Entry, HistoryEvent, RetiredEntry
from tests.fakes import InMemoryEntryStore


class LifecycleStore(InMemoryEntryStore):
    """Entries plus the retired table, aliases and history (only what the use cases under test call)."""

    def __init__(self) -> None:
        super().__init__()
        self.retired_by_id: dict[str, RetiredEntry] = {}
        self.events: list[HistoryEvent] = []
        self.alias: dict[str, str] = {}

    def set_anchors(self, entry_id, anchors, event=None) -> bool:
        if entry_id not in self.entries:
            return False
        self.entries[entry_id] = self.entries[entry_id].with_changes(anchors=tuple(anchors))
        self._record(event)
        return True

    def retire(self, entry_id, event, superseded_by=None) -> Optional[RetiredEntry]:
        entry = self.entries.pop(entry_id, None)
        if entry is None:
            return None
        self.retired_by_id[entry_id] = RetiredEntry(entry, event.at, event.detail.get("reason", ""), superseded_by)
        self._record(event)
        self._queue(entry, "forget")
        return self.retired_by_id[entry_id]

    def restore(self, entry_id, event) -> Optional[Entry]:
        retired = self.retired_by_id.pop(entry_id, None)
        if retired is None:
            return None
        self.entries[entry_id] = retired.entry.with_changes(has_embedding=False)
        self._record(event)
        self._queue(retired.entry, "record")
        return self.entries[entry_id]

    def retired(self, entry_id) -> Optional[RetiredEntry]:
        return self.retired_by_id.get(entry_id)

    def retired_entries(self) -> list[RetiredEntry]:
        return sorted(self.retired_by_id.values(), key=lambda r: r.retired_at, reverse=True)

    def resolve(self, entry_id: str) -> str:
        while entry_id in self.alias:
            entry_id = self.alias[entry_id]
        return entry_id

    def history(self, entry_id: str) -> list[HistoryEvent]:
        ids = {entry_id} | {old for old in self.alias if self.resolve(old) == entry_id}
        return [e for e in self.events if e.entry_id in ids]

    def record_event(self, event: HistoryEvent) -> None:
        self._record(event)

    def _record(self, event: Optional[HistoryEvent]) -> None:
        if event is not None:
            self.events.append(event)


def _aliases(self) -> dict[str, str]:
    return {old: self.resolve(old) for old in self.alias}


def _unused(self, *args, **kwargs):
    raise AssertionError("not part of these tests")


LifecycleStore.aliases = _aliases
# The rest of the port, so `isinstance(store, EntryLifecycle)` holds where a use case asks.
LifecycleStore.replace_text = LifecycleStore.all_history = LifecycleStore.apply_history = _unused
LifecycleStore.bank_blocks = LifecycleStore.set_bank_blocks = _unused
