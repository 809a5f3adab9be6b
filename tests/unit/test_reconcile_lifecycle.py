"""The replay of owed markdown after a lifecycle change (ADR 26): a retired or edited-away entry leaves the store's
own markdown without a tombstone, and the history file is written whenever it lags the database's history."""

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

    set_anchors = restore = aliases = history = apply_history = bank_blocks = set_bank_blocks = _unused


class LifecycleAuditTrail(FakeAuditTrail):
    """The fake audit trail, with what it withdrew and the history it last wrote."""

    def __init__(self) -> None:
        super().__init__()
        self.withdrawn: list[str] = []
        self.forgotten: list[str] = []
        self.written: Optional[tuple[list[HistoryEvent], list[RetiredEntry]]] = None
        self.writes = 0

    def forget(self, entry_id: str, category: str) -> list[str]:
        self.forgotten.append(entry_id)
        return super().forget(entry_id, category)

    def withdraw(self, entry_id: str, category: str) -> list[str]:
        self.withdrawn.append(entry_id)
        return super().forget(entry_id, category)

    def history_count(self) -> int:
        return len(self.written[0]) if self.written else 0

    def write_history(self, events, retired) -> list[str]:
        self.written, self.writes = (list(events), list(retired)), self.writes + 1
        return ["entry-history.md"]


def _draft(text: str) -> EntryDraft:
    return EntryDraft(name=text[:20], description=text, category="patterns", source="retro")


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
    assert set(audit.files["/work/app"]) == {new} and audit.withdrawn == [old]


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

    def broken(events, retired):
        raise OSError("read-only file system")

    audit.write_history = broken
    assert "history not written" in reconcile.run().problems[0]
    del audit.write_history
    reconcile.run()
    assert audit.history_count() == 1


class RebuildingStore(LifecycleStore):
    """Records what a rebuild applied."""

    def apply_history(self, events, retired, aliases) -> None:
        self.applied = (list(events), list(retired), dict(aliases))


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
    assert store.applied == (retirements, kept, {})
