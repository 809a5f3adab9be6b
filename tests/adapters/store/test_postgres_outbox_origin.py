"""A team's server holds one outbox for every machine: each machine replays only the markdown it owes."""

from __future__ import annotations

from memory_core.entries.models import EntryDraft
from tests.fakes import T0


def test_each_machine_replays_only_its_own_owed_markdown(postgres_url):
    from memory_adapters.store.postgres.store import PostgresEntryStore

    alice = PostgresEntryStore(postgres_url, origin="alice-laptop:/home/alice/.claude/iflow/memory")
    bob = PostgresEntryStore(postgres_url, origin="bob-desktop:/home/bob/.claude/iflow/memory")
    try:
        for store in (alice, bob):
            store.queue_markdown("/work/shop")
        draft = EntryDraft(name="Quote CSV fields", description="Quote fields holding delimiters", category="patterns")
        alice.upsert(draft, T0)
        assert [t.entry_id for t in alice.pending_audit(10)] == [draft.entry_id]
        assert bob.pending_audit(10) == []
        bob.upsert(draft, T0)  # bob reinforces it: now his markdown owes it too
        assert [t.entry_id for t in bob.pending_audit(10)] == [draft.entry_id]
        alice.audit_done(alice.pending_audit(10))
        assert alice.pending_audit(10) == [] and len(bob.pending_audit(10)) == 1
    finally:
        alice.close()
        bob.close()
