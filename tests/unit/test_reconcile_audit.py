"""Database and markdown never drift: owed markdown writes are queued with the commit and replayed."""

from __future__ import annotations

from memory_core.entries.models import EntryDraft
from memory_core.usecases.reconcile_audit import ReconcileAudit
from memory_core.usecases.remember import Remember
from tests.fakes import FakeAuditTrail, FakeClock, InMemoryEntryStore


def _draft(text: str, **fields) -> EntryDraft:
    return EntryDraft(name=text[:20], description=text, category="patterns", source="retro", **fields)


def _wired(root="/work/app"):
    store, audit = InMemoryEntryStore(), FakeAuditTrail()
    store.queue_markdown(root)
    return store, audit, ReconcileAudit(store, audit.for_root, audit.exclusive)


def test_a_write_whose_markdown_never_happened_is_written_by_the_next_write():
    store, audit, reconcile = _wired()
    store.upsert(_draft("Killed before its markdown was written."), FakeClock().now())  # a writer died here
    assert audit.files == {}
    Remember(store, FakeClock(), reconcile=reconcile).run(_draft("The next write replays what is owed."))
    assert set(audit.files["/work/app"]) == {e.id for e in store.all_entries()}
    assert store.pending_audit(10) == []


def test_markdown_holds_the_current_state_not_the_queued_one():
    store, audit, reconcile = _wired()
    clock = FakeClock()
    for _ in range(3):
        store.upsert(_draft("Counted three times before any markdown."), clock.now())
    reconcile.run()
    (entry,) = audit.files["/work/app"].values()
    assert entry.observation_count == 3 and len(store.pending_audit(10)) == 0


def test_a_delete_removes_the_markdown_even_when_the_deleting_process_died():
    store, audit, reconcile = _wired()
    entry_id = Remember(store, FakeClock(), reconcile=reconcile).run(_draft("Soon deleted.")).entry_id
    assert entry_id in audit.files["/work/app"]
    store.delete(entry_id)  # the process died before removing the markdown
    reconcile.run()
    assert entry_id not in audit.files["/work/app"]


def test_a_failed_markdown_write_stays_queued_and_is_reported():
    store, audit, reconcile = _wired()
    audit.broken = True
    remember = Remember(store, FakeClock(), reconcile=reconcile)
    stored = remember.run(_draft("Written while the project directory was read-only."))
    assert remember.audit_problem and "read-only" in remember.audit_problem
    assert [t.entry_id for t in store.pending_audit(10)] == [stored.entry_id]
    audit.broken = False
    assert reconcile.run().done == 1 and stored.entry_id in audit.files["/work/app"]


def test_a_newer_write_queued_during_a_replay_stays_queued():
    store, audit, _ = _wired()
    clock = FakeClock()
    store.upsert(_draft("Written twice around a replay."), clock.now())
    (task,) = store.pending_audit(10)
    store.upsert(_draft("Written twice around a replay."), clock.now())  # another writer, after the read
    store.audit_done([task])  # the older replay finishes
    assert len(store.pending_audit(10)) == 1, "the newer write still owes its markdown"


def test_each_task_goes_to_the_project_that_wrote_it():
    store, audit, reconcile = _wired("/work/a")
    a = store.upsert(_draft("Written in project a."), FakeClock().now()).entry_id
    store.queue_markdown("/work/b")
    b = store.upsert(_draft("Written in project b."), FakeClock().now()).entry_id
    reconcile.run()
    assert set(audit.files["/work/a"]) == {a} and set(audit.files["/work/b"]) == {b}
