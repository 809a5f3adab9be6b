"""The merge rules on the SQLite store: any sequence of writes, imports and deletes ends as on the fake (the rules
themselves, as properties of memory_core.entries.merge, are in tests/unit/test_merge_rules.py)."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import given, settings, strategies as st

from tests.unit.test_merge_rules import T0, drafts


@settings(max_examples=30, deadline=None)
@given(ops=st.lists(st.tuples(st.sampled_from(["upsert", "import", "delete"]), st.integers(0, 2), drafts()),
                    min_size=1, max_size=12))
def test_sqlite_and_the_fake_apply_the_same_rules(tmp_path_factory, ops):
    """Whatever sequence of writes, imports and deletes: the SQLite store ends exactly like the fake."""
    from memory_adapters.store.sqlite.store import SqliteEntryStore
    from tests.fakes import InMemoryEntryStore

    sqlite = SqliteEntryStore(str(tmp_path_factory.mktemp("merge") / "memory.db"))
    fake = InMemoryEntryStore()
    texts = ["Pin the tokenizer next to the weights.", "Retry busy writes with backoff.", "Fence recalled notes."]
    try:
        for n, (op, which, draft) in enumerate(ops):
            draft = draft.model_copy(update={"description": texts[which]})
            when = T0 + timedelta(minutes=n)
            for store in (sqlite, fake):
                if op == "upsert":
                    store.upsert(draft, when)
                elif op == "import":
                    store.import_entries([(draft, None)], when)
                else:
                    store.delete(draft.entry_id)
        def shape(store):
            return sorted((e.id, e.name, e.reasoning, e.keywords, e.references, e.confidence, e.source,
                           e.observation_count, e.created_at, e.updated_at) for e in store.all_entries())
        assert shape(sqlite) == shape(fake)
    finally:
        sqlite.close()
