"""AuditOutbox contract: a store that queues the markdown write of every entry it commits or deletes."""

from __future__ import annotations

import os

from memory_adapters.markdown.audit_watermark import advance_watermark
from memory_core.entries.models import EntryDraft
from memory_core.ports.audit_outbox import AuditOutbox
from tests.fakes import T0


def draft(text: str = "Queue the markdown write in the entry's own transaction.") -> EntryDraft:
    return EntryDraft(name="Outbox", description=text, category="heuristics", source="retro")


class AuditOutboxContract:
    """Behaviour every AuditOutbox store must show; subclasses name their `backend` (the `store` fixture's)."""

    def test_nothing_is_queued_unless_asked(self, store):
        assert isinstance(store, AuditOutbox)
        store.upsert(draft(), T0)
        assert store.pending_audit(10) == []

    def test_writes_and_deletes_queue_one_task_per_entry_and_project(self, store):
        store.queue_markdown("/p/one")
        entry_id = store.upsert(draft(), T0).entry_id
        store.upsert(draft(), T0)
        other = store.upsert(draft("Another entry."), T0).entry_id
        tasks = store.pending_audit(10)
        assert [(t.entry_id, t.action, t.category, t.project_root) for t in tasks] == [
            (entry_id, "record", "heuristics", "/p/one"), (other, "record", "heuristics", "/p/one")]
        store.delete(entry_id)
        assert [(t.entry_id, t.action) for t in store.pending_audit(10)] == [(other, "record"), (entry_id, "forget")]
        store.queue_markdown(None)
        store.upsert(draft("Global only."), T0)
        assert store.pending_audit(10)[-1].project_root is None

    def test_done_keeps_a_task_queued_again_since(self, store):
        store.queue_markdown("/p")
        store.upsert(draft(), T0)
        (old,) = store.pending_audit(10)
        store.upsert(draft(), T0)
        store.audit_done([old])
        (new,) = store.pending_audit(10)
        assert new.seq > old.seq
        store.audit_failed(new)
        store.audit_done([new])
        assert store.pending_audit(10) == []

    def test_imports_queue_nothing(self, store):
        store.queue_markdown("/p")
        store.import_entries([(draft(), None)], T0)
        assert store.pending_audit(10) == []


class TestSqliteAuditOutbox(AuditOutboxContract):
    backend = "sqlite"

    def test_a_database_found_behind_its_markdown_stays_behind_until_caught_up(self, store):
        """Writes that do not import first (they number past the watermark) must not hide lost commits."""
        store.queue_markdown("/p")
        store.upsert(draft(), T0)
        advance_watermark(os.path.dirname(os.path.abspath(store.path)), 4)  # the markdown recorded 3 lost commits
        for n in range(5):
            store.upsert(draft(f"Write {n} after the loss."), T0)

        assert store.markdown_ahead(), "still behind: the lost entries were never imported again"
        store.caught_up()
        assert not store.markdown_ahead()


class TestPostgresAuditOutbox(AuditOutboxContract):
    backend = "postgres"


class TestInMemoryAuditOutbox(AuditOutboxContract):
    backend = "fake"
