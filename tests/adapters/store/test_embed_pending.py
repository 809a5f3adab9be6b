"""EmbedPending on the SQLite store: whatever runs between the batches of a re-embed, a query sees one embedding
space (the in-memory store's run of the same property, and the rest of EmbedPending, are in
tests/unit/test_embed_pending.py)."""

from __future__ import annotations

import os
import tempfile

from hypothesis import given, settings
from hypothesis import strategies as st

from memory_adapters.store.sqlite.store import SqliteEntryStore
from tests.unit.test_embed_pending import ACTIONS, interleave


@settings(max_examples=40, deadline=None)
@given(initial=st.integers(0, 4), actions=ACTIONS, batch=st.integers(1, 3))
def test_sqlite_queries_only_ever_see_one_space(initial, actions, batch):
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteEntryStore(os.path.join(tmp, "memory.db"))
        try:
            interleave(store, initial, actions, batch)
        finally:
            store.close()
