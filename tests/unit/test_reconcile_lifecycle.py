"""The replay of owed markdown after a lifecycle change (ADR 26): a retired or edited-away entry leaves the store's
own markdown without a tombstone (and the project's bank when the trail wrote it there, never a hand-written bank
block), and the history file is written whenever it lags the database's history, carrying a restored bank entry."""

from __future__ import annotations

from typing import Optional

from memory_core.entries.models import EntryDraft
from memory_core.entries.records import Entry, HistoryEvent, RetiredEntry
from memory_core.ports.audit_trail import LifecycleTrail
from memory_core.ports.entry_lifecycle import EntryLifecycle
from memory_core.usecases.reconcile_audit import ReconcileAudit
from tests.fakes import FakeAuditTrail, FakeClock, InMemoryEntryStore

ACTOR = "ana via cli"


class LifecycleStore(InMemoryEntryStore):
    """Just enough of EntryLifecycle for the replay: retire and edit queue a `record` of the id that left."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[HistoryEvent] = []
        self.gone: dict[str, RetiredEntry] = {}
        self.edits: dict[str, str] = {}

    def retire(self, entry_id: str, event: HistoryEvent, superseded_by: Optional[str] = None):
        entry = self.entries.pop(entry_id)
        self.gone[entry_id] = RetiredEntry(entry, event.at, event.detail.get("reason", ""), superseded_by)
        self.events.append(event)
        self._queue(entry, "record")
        return self.gone[entry_id]

    def replace_text(self, old_id: str, draft: EntryDraft, event: HistoryEvent):
        old = self.entries.pop(old_id)
        new = Entry.from_draft(draft, event.at).with_changes(observation_count=old.observation_count)
        self.entries[new.id] = new
        self.edits[old_id] = new.id
        self.events.append(event)
        self._queue(old, "record")
        self._queue(new, "record")
        return new

    def restore(self, entry_id: str, event: HistoryEvent):
        entry = self.gone.pop(entry_id).entry
        self.entries[entry_id] = entry
        self.events.append(event)
        if entry.source != "import":  # as the SQL stores: an imported entry's markdown is its bank
            self._queue(entry, "record")
        return entry

    def retired(self, entry_id: str):
        return self.gone.get(entry_id)

    def retired_entries(self):
        return list(self.gone.values())

    def resolve(self, entry_id: str) -> str:
        return self.edits.get(entry_id, entry_id)

    def all_history(self):
        return list(self.events)

    def record_event(self, event: HistoryEvent) -> None:
        self.events.append(event)

    def _unused(self, *args, **kwargs):
        raise AssertionError("not part of the replay")

    set_anchors = aliases = history = apply_history = bank_blocks = set_bank_blocks = _unused


class LifecycleAuditTrail(FakeAuditTrail):
    """The fake audit trail, with what it withdrew and the history it last wrote."""

    def __init__(self) -> None:
        super().__init__()
        self.withdrawn: list[str] = []
        self.from_bank: list[str] = []
        self.forgotten: list[str] = []
        self.written: Optional[tuple[list[HistoryEvent], list[RetiredEntry]]] = None
        self.restored: list[Entry] = []
        self.writes = 0

    def forget(self, entry_id: str, category: str) -> list[str]:
        self.forgotten.append(entry_id)
        return super().forget(entry_id, category)

    def withdraw(self, entry_id: str, category: str, from_bank: bool = False) -> list[str]:
        self.withdrawn.append(entry_id)
        if from_bank:
            self.from_bank.append(entry_id)
        return super().forget(entry_id, category)

    def history_count(self) -> int:
        return len(self.written[0]) if self.written else 0

    def write_history(self, events, retired, restored=()) -> list[str]:
        self.written, self.writes = (list(events), list(retired)), self.writes + 1
        self.restored = list(restored)
        return ["entry-history.md"]


def _draft(text: str, source: str = "retro") -> EntryDraft:
    return EntryDraft(name=text[:20], description=text, category="patterns", source=source)


def _wired():
    store, audit = LifecycleStore(), LifecycleAuditTrail()
    assert isinstance(store, EntryLifecycle) and isinstance(audit, LifecycleTrail)
    store.queue_markdown("/work/app")
    reconcile = ReconcileAudit(store, audit.for_root, audit.exclusive)
    return store, audit, reconcile


def test_a_retired_entry_leaves_the_markdown_without_a_tombstone_and_the_history_is_written():
    store, audit, reconcile = _wired()
    clock = FakeClock()
    entry_id = store.upsert(_draft("Retired after a killed writer."), clock.now()).entry_id
    reconcile.run()
    event = HistoryEvent(entry_id, "retired", clock.now(), ACTOR, {"reason": "stale"})
    store.retire(entry_id, event)  # the writer was killed before its markdown: the next run owes it
    report = reconcile.run()
    assert report.done == 1 and not report.problems
    assert audit.withdrawn == [entry_id] and audit.forgotten == [], "a retirement is no deletion"
    assert audit.from_bank == [entry_id], "the writer put it in the project's bank: it leaves that too"
    assert entry_id not in audit.files["/work/app"]
    assert audit.written == ([event], [store.gone[entry_id]])


def test_an_edit_replaces_the_old_block_with_the_new_one():
    store, audit, reconcile = _wired()
    clock = FakeClock()
    old = store.upsert(_draft("The first wording."), clock.now()).entry_id
    reconcile.run()
    new = store.replace_text(old, _draft("The better wording."),
                             HistoryEvent(old, "edited", clock.now(), ACTOR, {"old_id": old})).id
    reconcile.run()
    assert set(audit.files["/work/app"]) == {new} and audit.withdrawn == [old] and audit.from_bank == [old]


def test_a_hand_written_bank_block_is_never_withdrawn_from_the_bank():
    """An imported entry (source `import`): its block is the user's writing; retired or edited away, only the
    store's own markdown loses it."""
    store, audit, reconcile = _wired()
    clock = FakeClock()
    retired = store.upsert(_draft("Written by hand in the bank.", "import"), clock.now()).entry_id
    edited = store.upsert(_draft("Also written by hand.", "import"), clock.now()).entry_id
    reconcile.run()
    store.retire(retired, HistoryEvent(retired, "retired", clock.now(), ACTOR, {"reason": "removed from x.md"}))
    store.replace_text(edited, _draft("Edited by hand.", "import"),
                       HistoryEvent(edited, "edited", clock.now(), ACTOR, {"old_id": edited}))
    reconcile.run()
    assert sorted(audit.withdrawn) == sorted([retired, edited]) and audit.from_bank == []


def test_a_restored_bank_entry_is_carried_by_the_history_file():
    """Retired by an import (its block left the bank) and restored by hand: no markdown holds it, so the history
    file is written with it; a restored entry of the trail's own is not (its blocks are back)."""
    store, audit, reconcile = _wired()
    clock = FakeClock()
    bank = store.upsert(_draft("Once in the bank.", "import"), clock.now()).entry_id
    own = store.upsert(_draft("Written by the writer."), clock.now()).entry_id
    for entry_id in (bank, own):
        store.retire(entry_id, HistoryEvent(entry_id, "retired", clock.now(), ACTOR, {"reason": "stale"}))
    reconcile.run()
    assert audit.restored == []
    for entry_id in (bank, own):
        store.restore(entry_id, HistoryEvent(entry_id, "restored", clock.now(), ACTOR))
    reconcile.run()
    assert [e.id for e in audit.restored] == [bank] and audit.written[1] == []


def test_the_history_file_is_written_only_when_it_lags():
    store, audit, reconcile = _wired()
    clock = FakeClock()
    store.upsert(_draft("An ordinary write."), clock.now())
    reconcile.run()
    assert audit.writes == 0, "no history, nothing to write"
    store.record_event(HistoryEvent(store.all_entries()[0].id, "merged", clock.now(), ACTOR, {"from": "x"}))
    reconcile.run()  # nothing owed in the outbox, but the file lacks an event
    assert audit.writes == 1
    store.upsert(_draft("Another ordinary write."), clock.now())
    reconcile.run()
    assert audit.writes == 1, "a write that changed no history does not rewrite the file"


def test_a_history_file_that_cannot_be_written_is_reported_and_tried_again():
    store, audit, reconcile = _wired()
    clock = FakeClock()
    entry_id = store.upsert(_draft("Retired on a read-only disk."), clock.now()).entry_id
    store.retire(entry_id, HistoryEvent(entry_id, "retired", clock.now(), ACTOR))

    def broken(events, retired, restored=()):
        raise OSError("read-only file system")

    audit.write_history = broken
    assert "history not written" in reconcile.run().problems[0]
    del audit.write_history
    reconcile.run()
    assert audit.history_count() == 1


class RebuildingStore(LifecycleStore):
    """Records what a rebuild applied."""

    def apply_history(self, events, retired, aliases, restored=()) -> None:
        self.applied = (list(events), list(retired), dict(aliases), list(restored))


def test_a_rebuild_retires_again_what_an_old_snapshot_still_holds_live():
    from datetime import timedelta

    from memory_core.usecases.rebuild_history import apply_history_file

    store, clock = RebuildingStore(), FakeClock()
    lost = store.upsert(_draft("Retired after the snapshot was taken."), clock.now()).entry_id
    rewritten = store.upsert(_draft("Retired, then written again later."), clock.now()).entry_id
    later = clock.now() + timedelta(hours=1)
    retirements = [HistoryEvent(lost, "retired", later, ACTOR, {"reason": "stale"}),
                   HistoryEvent(rewritten, "retired", clock.now() - timedelta(hours=1), ACTOR)]
    kept = [RetiredEntry(store.get(lost), later, "stale"),
            RetiredEntry(store.get(rewritten), clock.now() - timedelta(hours=1))]

    assert apply_history_file(store, retirements, kept, {}) == 1
    assert store.get(lost) is None and store.retired(lost).reason == "stale"
    assert store.get(rewritten) is not None, "written again after its retirement: the live entry wins"
    assert store.applied == (retirements, kept, {}, [])


def test_a_block_an_edit_moved_to_another_category_leaves_the_old_categorys_file():
    store, audit, reconcile = _wired()
    clock = FakeClock()
    entry_id = store.upsert(_draft("Moved to the heuristics by a person's edit."), clock.now()).entry_id
    reconcile.run()
    old = store.entries[entry_id]
    store.entries[entry_id] = old.with_changes(category="heuristics")
    store._queue(old, "record")  # as the SQL stores queue a person's edit that kept the id: under the old category

    report = reconcile.run()

    assert report.done == 1 and audit.withdrawn == [entry_id] and audit.from_bank == [entry_id]
    assert audit.files["/work/app"][entry_id].category == "heuristics", "then written under its new category"
    store._queue(store.entries[entry_id], "record")
    reconcile.run()
    assert audit.withdrawn == [entry_id], "a write in the same category withdraws nothing"
