"""EntryStore + EmbeddingStore contract: every store backend (and the fake) must pass this suite."""

from __future__ import annotations

import getpass
import sqlite3
from datetime import timedelta

import pytest

from memory_adapters.vectors.float32 import pack_vector
from memory_adapters.store.postgres.store import PostgresEntryStore
from memory_core.entries.models import EntryDraft
from memory_core.ports import EmbeddingStore, EntryStore, KeywordIndex, QueryVectorCache
from memory_core.ports.audit_outbox import AuditOutbox
from memory_core.ports.audit_watermark import AuditWatermark
from memory_core.ports.candidate_source import CandidateSource
from memory_core.ports.entry_store import BatchVectorStore, ImportStateReader
from memory_core.ports.reference_index import ReferenceIndex
from memory_core.ports.staging_vector_store import StagingVectorStore
from tests._shared_prefix import sharing_a_prefix
from tests.fakes import T0

UNKNOWN_ID = "0123456789abcdef"


def import_one(store, entry: EntryDraft, now, updated_at=None):
    """What importing one markdown entry did: a batch of one through `import_entries`."""
    return store.import_entries([(entry, updated_at)], now)[0]


def draft(description: str = "Use WAL mode so readers never block the writer", **fields) -> EntryDraft:
    """A valid draft; tests override only the fields they care about."""
    values = {"name": "WAL mode", "description": description, "category": "patterns"}
    values.update(fields)
    return EntryDraft(**values)


class EntryStoreContract:
    """Behaviour every EntryStore must show; subclasses name their `backend` (the `store` fixture's)."""

    def test_implements_the_ports(self, store):
        assert isinstance(store, EntryStore)
        assert isinstance(store, EmbeddingStore)
        assert isinstance(store, KeywordIndex)

    # -- upsert -----------------------------------------------------------------------------
    def test_first_upsert_creates_with_the_drafts_observation_count(self, store):
        outcome = store.upsert(draft(observation_count=4), T0)
        assert outcome.created is True
        assert outcome.observation_count == 4
        assert outcome.entry_id == draft().entry_id
        entry = store.get(outcome.entry_id)
        assert entry.observation_count == 4
        assert entry.name == "WAL mode" and entry.category == "patterns"
        assert entry.created_at == T0 and entry.updated_at == T0
        assert entry.recall_count == 0 and entry.last_recalled_at is None

    def test_same_description_differently_cased_and_spaced_reinforces(self, store):
        first = store.upsert(draft("Use WAL mode so readers never block the writer"), T0)
        later = T0 + timedelta(hours=1)
        second = store.upsert(draft("  use wal MODE so readers\nnever   block the writer "), later)
        assert second.created is False
        assert second.entry_id == first.entry_id
        assert second.observation_count == 2
        assert store.count() == 1
        entry = store.get(first.entry_id)
        assert entry.observation_count == 2
        assert entry.created_at == T0 and entry.updated_at == later

    def test_reinforcement_adds_one_whatever_the_draft_says(self, store):
        store.upsert(draft(observation_count=3), T0)
        assert store.upsert(draft(observation_count=9), T0).observation_count == 4

    def test_reinforcement_keeps_text_fields_that_were_not_given(self, store):
        entry_id = store.upsert(draft(reasoning="readers see a snapshot", keywords=["sqlite-wal", "locking"],
                                      references=["src/db.py"], confidence="high"), T0).entry_id
        store.upsert(draft(), T0)
        store.upsert(draft(reasoning="", keywords=[], references=[]), T0)
        entry = store.get(entry_id)
        assert entry.reasoning == "readers see a snapshot"
        assert entry.keywords == ["sqlite-wal", "locking"]
        assert entry.references == ["src/db.py"]
        assert entry.confidence == "high"
        assert entry.observation_count == 3

    def test_reinforcement_overwrites_text_fields_that_were_given(self, store):
        entry_id = store.upsert(draft(reasoning="old", keywords=["old-kw"], references=["a.py"]), T0).entry_id
        store.upsert(draft(reasoning="new reason", keywords=["new-kw"], references=["b.py"], confidence="low"), T0)
        entry = store.get(entry_id)
        assert (entry.reasoning, entry.keywords, entry.references) == ("new reason", ["new-kw"], ["b.py"])
        assert entry.confidence == "low"

    # -- reads and delete -------------------------------------------------------------------
    def test_get_unknown_id_is_none(self, store):
        assert store.get(UNKNOWN_ID) is None

    def test_ids_with_prefix_lists_the_ids_that_start_with_it(self, store):
        first, second = sharing_a_prefix(4)
        ids = sorted(store.upsert(draft(text), T0).entry_id for text in (first, second))
        other = store.upsert(draft("An unrelated learning about logs"), T0).entry_id
        assert store.ids_with_prefix(ids[0][:4], 10) == ids
        assert store.ids_with_prefix(ids[0][:4], 1) == ids[:1]
        assert store.ids_with_prefix(ids[1], 10) == [ids[1]]
        assert store.ids_with_prefix(other[:6], 10) == [other]
        assert store.ids_with_prefix(UNKNOWN_ID, 10) == []

    def test_all_entries_and_count(self, store):
        assert store.count() == 0 and store.all_entries() == []
        ids = {store.upsert(draft(f"learning number {i}"), T0).entry_id for i in range(3)}
        assert store.count() == 3
        assert {e.id for e in store.all_entries()} == ids

    def test_delete(self, store):
        keep = store.upsert(draft("keep me"), T0).entry_id
        gone = store.upsert(draft("delete me"), T0).entry_id
        assert store.delete(gone) is True
        assert store.delete(gone) is False
        assert store.get(gone) is None
        assert store.count() == 1 and store.get(keep) is not None

    # -- recall -----------------------------------------------------------------------------
    def test_record_recall_counts_every_call(self, store):
        entry_id = store.upsert(draft(), T0).entry_id
        other = store.upsert(draft("never recalled"), T0).entry_id
        for hours in (1, 2, 3):
            store.record_recall([entry_id], T0 + timedelta(hours=hours))
        entry = store.get(entry_id)
        assert entry.recall_count == 3
        assert entry.last_recalled_at == T0 + timedelta(hours=3)
        assert store.get(other).recall_count == 0 and store.get(other).last_recalled_at is None

    def test_record_recall_ignores_unknown_ids_and_empty_lists(self, store):
        entry_id = store.upsert(draft(), T0).entry_id
        store.record_recall([], T0)
        store.record_recall([UNKNOWN_ID, entry_id], T0)
        assert store.get(UNKNOWN_ID) is None
        assert store.get(entry_id).recall_count == 1

    def test_an_id_listed_twice_in_one_recall_counts_once(self, store):
        # One injection recalls a *set* of entries; SQLite's `WHERE id IN (...)` counts each row once.
        entry_id = store.upsert(draft(), T0).entry_id
        store.record_recall([entry_id, entry_id], T0)
        assert store.get(entry_id).recall_count == 1

    # -- metadata ---------------------------------------------------------------------------
    def test_metadata_get_set_overwrite(self, store):
        assert store.get_metadata("embedding_model") is None
        store.set_metadata("embedding_model", "fake-bow")
        assert store.get_metadata("embedding_model") == "fake-bow"
        store.set_metadata("embedding_model", "other")
        assert store.get_metadata("embedding_model") == "other"

    # -- vectors ----------------------------------------------------------------------------
    def test_vectors_and_pending_ids(self, store):
        a = store.upsert(draft("first learning"), T0).entry_id
        b = store.upsert(draft("second learning"), T0).entry_id
        assert set(store.pending_ids(10)) == {a, b}
        assert len(store.pending_ids(1)) == 1
        assert list(store.vectors()) == []
        assert store.get(a).has_embedding is False
        store.set_vector(a, [0.5, -1.0, 2.0])
        assert [(i, bytes(v)) for i, v in store.vectors()] == [(a, pack_vector([0.5, -1.0, 2.0]))]
        assert store.pending_ids(10) == [b]
        assert store.get(a).has_embedding is True
        assert {e.id: e.has_embedding for e in store.all_entries()} == {a: True, b: False}

    def test_deleting_an_entry_drops_its_vector(self, store):
        entry_id = store.upsert(draft(), T0).entry_id
        store.set_vector(entry_id, [1.0, 0.0])
        store.delete(entry_id)
        assert list(store.vectors()) == []

    def test_vectors_only_belong_to_stored_entries(self, store):
        # vectors() promises "every entry with a vector": a vector for an id never stored is not an entry's.
        store.set_vector(UNKNOWN_ID, [1.0, 0.0])
        assert [i for i, _ in store.vectors()] == []
        assert store.get(UNKNOWN_ID) is None

    # -- import -----------------------------------------------------------------------------
    def test_import_new_then_unchanged(self, store):
        first = import_one(store, draft(observation_count=2), T0)
        assert first.status == "new"
        entry = store.get(first.entry_id)
        assert entry.source == "import" and entry.observation_count == 2
        again = import_one(store, draft(observation_count=2), T0 + timedelta(days=1))
        assert again.status == "unchanged"
        entry = store.get(first.entry_id)
        assert entry.observation_count == 2 and entry.updated_at == T0

    def test_import_with_more_observations_updates_counters(self, store):
        entry_id = import_one(store, draft(observation_count=2, confidence="low"), T0).entry_id
        later = T0 + timedelta(days=2)
        assert import_one(store, draft(observation_count=5, confidence="high"), T0, updated_at=later).status \
            == "updated"
        entry = store.get(entry_id)
        assert entry.observation_count == 5 and entry.confidence == "high" and entry.updated_at == later

    def test_import_with_fewer_observations_is_unchanged(self, store):
        entry_id = import_one(store, draft(observation_count=5), T0).entry_id
        assert import_one(store, draft(observation_count=1), T0).status == "unchanged"
        assert store.get(entry_id).observation_count == 5

    def test_import_never_bumps_an_entry_written_by_upsert(self, store):
        entry_id = store.upsert(draft(), T0).entry_id
        assert import_one(store, draft(), T0).status == "unchanged"
        assert store.get(entry_id).observation_count == 1 and store.count() == 1

    def test_import_fills_missing_keywords(self, store):
        entry_id = import_one(store, draft(), T0).entry_id
        assert import_one(store, draft(keywords=["sqlite-wal"]), T0).status == "updated"
        assert store.get(entry_id).keywords == ["sqlite-wal"]

    def test_import_uses_updated_at_for_new_entries(self, store):
        marked = T0 - timedelta(days=30)
        entry = store.get(import_one(store, draft(), T0, updated_at=marked).entry_id)
        assert entry.created_at == T0 and entry.updated_at == marked


    # -- ranking fields (the session-start hot path) -----------------------------------------
    def test_ranking_stats_carry_each_entrys_ranking_fields(self, store):
        old = T0 - timedelta(days=45, hours=3)
        first = import_one(store, draft(observation_count=3, confidence="high"), T0, updated_at=old).entry_id
        second = store.upsert(draft("Keep golden files small", category="anti-patterns", confidence="low"),
                               T0).entry_id
        store.record_recall([second], T0)
        store.set_vector(first, [1.0, 0.0])
        stats = {s.id: s for s in store.ranking_stats()}
        assert set(stats) == {first, second}
        assert stats[first] == (first, "patterns", 3, "high", 0, old.timestamp(), True)
        assert stats[second].category == "anti-patterns" and stats[second].confidence == "low"
        assert stats[second].recall_count == 1 and stats[second].observation_count == 1
        assert stats[second].updated_ts == pytest.approx(T0.timestamp(), abs=1e-3)
        assert not stats[second].has_embedding

    # -- scope (ADR 17) ---------------------------------------------------------------------
    def test_scoped_ranking_sees_universal_entries_and_its_projects_own(self, store):
        universal = store.upsert(draft("Everyone sees this"), T0).entry_id
        mine = store.upsert(draft("Only project A", scope="git:aaa"), T0).entry_id
        theirs = store.upsert(draft("Only project B", scope="git:bbb"), T0).entry_id

        def seen(*scopes):
            return {s.id for s in store.ranking_stats(list(scopes))}

        assert seen("git:aaa") == {universal, mine} and seen() == {universal}
        assert {s.id for s in store.ranking_stats()} == {universal, mine, theirs}
        store.add_scope(theirs, "git:aaa")  # project A's bank holds it too
        assert seen("git:aaa") == {universal, mine, theirs} and store.get(theirs).scope == "git:bbb"
        assert store.set_scope(mine, None) is True and store.get(mine).scope is None
        assert seen("git:ccc") == {universal, mine}
        assert store.set_scope(UNKNOWN_ID, "git:aaa") is False

    def test_a_deleted_entry_written_again_has_lost_its_extra_scopes(self, store):
        entry_id = store.upsert(draft("Only project B", scope="git:bbb"), T0).entry_id
        store.add_scope(entry_id, "git:aaa")
        store.delete(entry_id)
        store.upsert(draft("Only project B", scope="git:bbb"), T0)
        assert [s.id for s in store.ranking_stats(["git:aaa"])] == []

    def test_ranking_stats_follow_reinforcement_and_deletion(self, store):
        entry_id = store.upsert(draft(), T0).entry_id
        later = T0 + timedelta(days=2)
        store.upsert(draft(), later)
        (only,) = store.ranking_stats()
        assert only.observation_count == 2 and only.updated_ts == pytest.approx(later.timestamp(), abs=1e-3)
        store.delete(entry_id)
        assert store.ranking_stats() == []


class DurableEntryStoreContract(EntryStoreContract):
    """What a store on disk or on a server shows beyond the contract (the fake lives in memory only)."""

    def test_entries_survive_reopening(self, store, make_store):
        entry_id = store.upsert(draft(keywords=["sqlite-wal"]), T0).entry_id
        reopened = make_store(self.backend).get(entry_id)
        assert reopened.keywords == ["sqlite-wal"] and reopened.created_at == T0

    def test_import_states_tell_what_the_full_read_tells_an_import(self, store):
        """A resumed import compares thousands of stored entries within a session's deadline (issue 21): the
        cheap read gives the same observation count, labels and scope as the whole entries."""
        from memory_core.ports.entry_store import ImportStateReader, StoredState

        labelled = store.upsert(draft(keywords=["sqlite-wal"], observation_count=3), T0).entry_id
        plain = store.import_entries([(draft("Quote CSV fields", scope="path:/p"), None)], T0)[0].entry_id
        assert isinstance(store, ImportStateReader)
        states = {s.id: s for s in store.import_states([labelled, UNKNOWN_ID, plain])}
        assert states == {labelled: StoredState(labelled, 3, True, None),
                          plain: StoredState(plain, 1, False, "path:/p")}
        full = {e.id: (e.observation_count, bool(e.keywords), e.scope) for e in store.get_many([labelled, plain])}
        assert {i: (s.observation_count, s.labelled, s.scope) for i, s in states.items()} == full


# The ports the core and the apps check with isinstance: a method missing from a store's facade drops one.
SQL_STORE_PORTS = (EntryStore, EmbeddingStore, BatchVectorStore, ImportStateReader, AuditOutbox, KeywordIndex,
                   ReferenceIndex, StagingVectorStore, QueryVectorCache)


class TestSqliteEntryStore(DurableEntryStoreContract):
    backend = "sqlite"

    def test_answers_to_every_port_the_core_checks(self, store):
        assert all(isinstance(store, port) for port in SQL_STORE_PORTS)
        assert isinstance(store, AuditWatermark)
        assert not isinstance(store, CandidateSource)

    def test_ranking_stats_clean_hand_edited_rows_like_the_full_read(self, store, tmp_path):
        """Rows edited outside the app: counters and timestamps are cleaned in SQL, as `get` cleans them."""
        ids = [store.upsert(draft(f"Entry number {n} about WAL"), T0).entry_id for n in range(4)]
        edits = [
            ("UPDATE entries SET observation_count = 0, recall_count = -3, confidence = 'sure' WHERE id = ?", ids[0]),
            ("UPDATE entries SET updated_at = '2026-03-01T12:00:00+02:00' WHERE id = ?", ids[1]),
            ("UPDATE entries SET updated_at = 'not a date' WHERE id = ?", ids[2]),
            ("UPDATE entries SET updated_at = '2026-03-01 10:00:00' WHERE id = ?", ids[3]),
        ]
        raw = sqlite3.connect(str(tmp_path / "memory.db"))
        raw.execute("PRAGMA ignore_check_constraints = ON")  # what a hand edit or an old tool can leave behind
        with raw:
            for sql, entry_id in edits:
                raw.execute(sql, (entry_id,))
        raw.close()
        stats = {s.id: s for s in store.ranking_stats()}
        assert (stats[ids[0]].observation_count, stats[ids[0]].recall_count, stats[ids[0]].confidence) == (
            1, 0, "medium")
        assert stats[ids[1]].updated_ts == pytest.approx(1772359200.0, abs=1e-3)  # 10:00 UTC
        assert stats[ids[2]].updated_ts == 0.0  # unreadable: as old as can be, never a crash
        assert stats[ids[3]].updated_ts == pytest.approx(1772359200.0, abs=1e-3)  # naive means UTC

    def test_import_states_leave_out_a_malformed_row_so_the_import_writes_it_again(self, store, tmp_path):
        good, bad = (store.upsert(draft(f"Entry {n} about WAL"), T0).entry_id for n in range(2))
        raw = sqlite3.connect(str(tmp_path / "memory.db"))
        raw.execute("PRAGMA ignore_check_constraints = ON")
        with raw:
            raw.execute("UPDATE entries SET category = 'gossip' WHERE id = ?", (bad,))
        raw.close()
        assert [s.id for s in store.import_states([good, bad])] == [good]
        assert [e.id for e in store.get_many([good, bad])] == [good], "as the full read skips it"


class TestPostgresEntryStore(DurableEntryStoreContract):
    backend = "postgres"

    def test_answers_to_every_port_the_core_checks(self, store):
        assert all(isinstance(store, port) for port in SQL_STORE_PORTS)
        assert isinstance(store, CandidateSource)
        assert not isinstance(store, AuditWatermark)

    def test_entries_record_who_wrote_them(self, store):
        entry_id = store.upsert(draft(), T0).entry_id
        assert store.source_user(entry_id) == getpass.getuser()
        colleague = PostgresEntryStore(store.url, source_user="ana")
        other = colleague.upsert(draft("Written by a colleague"), T0).entry_id
        colleague.upsert(draft(), T0)  # reinforcing keeps the first writer
        colleague.close()
        assert (store.source_user(other), store.source_user(entry_id)) == ("ana", getpass.getuser())
        assert store.source_user(UNKNOWN_ID) is None


class TestInMemoryEntryStore(EntryStoreContract):
    backend = "fake"
