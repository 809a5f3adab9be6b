"""EntryLifecycle contract (ADR 26): anchors, retirement, edits that change an entry's id, and their history;
every SQL store must pass it (SQLite, and PostgreSQL where a server can start)."""

from __future__ import annotations

import sqlite3
from datetime import timedelta

from memory_adapters.store.sqlite.schema import LATEST_VERSION
from memory_core.anchors.anchor import Anchor
from memory_core.entries.models import EntryDraft
from memory_core.entries.records import HistoryEvent, RetiredEntry
from memory_core.ports.entry_lifecycle import EntryLifecycle
from tests.fakes import T0

UNKNOWN_ID = "0123456789abcdef"
ACTOR = "ana via cli"
ANCHOR = Anchor("src/csv_reader.py:12", "b" * 40, "r" * 16, "git:" + "a" * 40, "c" * 40)


def draft(description: str = "Never split CSV rows by hand in the reader", **fields) -> EntryDraft:
    """A valid draft; tests override only the fields they care about."""
    values = {"name": "CSV rows", "description": description, "category": "anti-patterns",
              "keywords": ["csv", "parser"], "references": ["src/csv_reader.py:12"]}
    values.update(fields)
    return EntryDraft(**values)


def event(entry_id: str, action: str, at=T0, **detail) -> HistoryEvent:
    """A history event by the test's actor."""
    return HistoryEvent(entry_id, action, at, ACTOR, detail)


def hidden_everywhere(store, entry_id: str) -> bool:
    """True when no read, ranking, search or vector path returns the entry."""
    return (store.get(entry_id) is None and store.get_many([entry_id]) == []
            and entry_id not in {e.id for e in store.all_entries()}
            and entry_id not in {s.id for s in store.ranking_stats()}
            and store.ids_with_prefix(entry_id[:6], 10) == []
            and entry_id not in store.keyword_search("csv OR reader", 10)
            and entry_id not in {i for i, _ in store.vectors()}
            and entry_id not in store.cited_files())


class EntryLifecycleContract:
    """Behaviour every EntryLifecycle store must show; subclasses name their `backend` and their driver's
    placeholders (`mark`, and `json_param` for a JSON value)."""

    mark = json_param = ""

    def test_implements_the_port(self, store):
        assert isinstance(store, EntryLifecycle)

    # -- anchors ---------------------------------------------------------------------------
    def test_anchors_round_trip_through_every_read_and_a_reopen(self, store, make_store, backend):
        entry_id = store.upsert(draft(), T0).entry_id
        assert store.get(entry_id).anchors == ()
        assert store.set_anchors(entry_id, [ANCHOR], event(entry_id, "confirmed")) is True
        assert store.get(entry_id).anchors == (ANCHOR,)
        assert store.get_many([entry_id])[0].anchors == (ANCHOR,)
        assert store.all_entries()[0].anchors == (ANCHOR,)
        store.upsert(draft(), T0 + timedelta(hours=1))  # a repeat keeps them
        assert make_store(backend).get(entry_id).anchors == (ANCHOR,)
        assert [e.action for e in store.history(entry_id)] == ["confirmed"]
        assert store.set_anchors(entry_id, []) is True
        assert store.get(entry_id).anchors == ()
        assert store.set_anchors(UNKNOWN_ID, [ANCHOR]) is False

    def test_a_malformed_anchor_costs_only_itself(self, store):
        entry_id = store.upsert(draft(), T0).entry_id
        update = f"UPDATE entries SET anchors = {self.json_param} WHERE id = {self.mark}"
        store.connection.write(update, ('[{"reference": 1}, "x", {"reference": "a.py", "blob": "b1"}]', entry_id))
        assert store.get(entry_id).anchors == (Anchor("a.py", "b1"),)
        store.connection.write(update, ('{"reference": "a.py"}', entry_id))
        assert store.get(entry_id).anchors == ()

    # -- retire and restore ----------------------------------------------------------------
    def test_retire_takes_the_entry_out_of_every_path_and_keeps_it_whole(self, store):
        entry_id = store.upsert(draft(observation_count=3, scope="git:" + "a" * 40), T0).entry_id
        store.add_scope(entry_id, "path:/elsewhere")
        store.set_anchors(entry_id, [ANCHOR])
        store.record_recall([entry_id], T0 + timedelta(minutes=5))
        store.set_vector(entry_id, [1.0, 0.0])
        kept = store.upsert(draft("Parse with the csv module, which knows quoting"), T0).entry_id
        version = store.vectors_version()
        retired = store.retire(entry_id, event(entry_id, "retired", T0 + timedelta(hours=1), reason="stale"),
                               superseded_by=kept)
        assert isinstance(retired, RetiredEntry)
        assert (retired.reason, retired.superseded_by) == ("stale", kept)
        assert hidden_everywhere(store, entry_id)
        assert store.count() == 1 and store.get(kept) is not None
        assert store.vectors_version() != version, "a vector cache outside the database sees the change"
        again = store.retired(entry_id)
        assert again.entry.id == entry_id and again.retired_at == T0 + timedelta(hours=1)
        assert (again.entry.observation_count, again.entry.recall_count, again.entry.anchors,
                again.entry.scope) == (3, 1, (ANCHOR,), "git:" + "a" * 40)
        assert again.entry.last_recalled_at == T0 + timedelta(minutes=5)
        assert [r.entry.id for r in store.retired_entries()] == [entry_id]
        assert store.retire(entry_id, event(entry_id, "retired")) is None, "not live any more"
        assert store.retire(UNKNOWN_ID, event(UNKNOWN_ID, "retired")) is None

    def test_retired_entries_are_listed_newest_retirement_first(self, store):
        ids = [store.upsert(draft(f"Learning number {n}"), T0).entry_id for n in range(3)]
        for hours, entry_id in zip((2, 1, 3), ids):
            store.retire(entry_id, event(entry_id, "retired", T0 + timedelta(hours=hours)))
        assert [r.entry.id for r in store.retired_entries()] == [ids[2], ids[0], ids[1]]

    def test_restore_puts_the_entry_back_as_it_was_to_be_embedded_again(self, store):
        entry_id = store.upsert(draft(observation_count=2, scope="git:" + "a" * 40), T0).entry_id
        store.add_scope(entry_id, "path:/elsewhere")
        store.set_anchors(entry_id, [ANCHOR])
        store.set_vector(entry_id, [1.0, 0.0])
        store.retire(entry_id, event(entry_id, "retired"))
        restored = store.restore(entry_id, event(entry_id, "restored", T0 + timedelta(hours=1)))
        assert restored is not None and restored.id == entry_id
        entry = store.get(entry_id)
        assert (entry.observation_count, entry.anchors, entry.scope, entry.created_at) == (
            2, (ANCHOR,), "git:" + "a" * 40, T0)
        assert entry.has_embedding is False and store.pending_ids(10) == [entry_id]
        assert entry_id in {s.id for s in store.ranking_stats(["path:/elsewhere"])}, "its extra scope came back"
        assert entry_id in store.keyword_search("csv", 10)
        assert store.retired(entry_id) is None and store.retired_entries() == []
        assert [e.action for e in store.history(entry_id)] == ["retired", "restored"]
        assert store.restore(entry_id, event(entry_id, "restored")) is None, "not retired any more"

    def test_retire_and_restore_queue_the_entrys_markdown(self, store):
        entry_id = store.upsert(draft(), T0).entry_id
        store.queue_markdown(None)
        store.retire(entry_id, event(entry_id, "retired"))
        assert [(t.entry_id, t.action) for t in store.pending_audit(10)] == [(entry_id, "record")]
        store.audit_done(store.pending_audit(10))
        store.restore(entry_id, event(entry_id, "restored"))
        assert [(t.entry_id, t.action) for t in store.pending_audit(10)] == [(entry_id, "record")]

    # -- edits -----------------------------------------------------------------------------
    def test_replace_text_keeps_counts_dates_and_anchors_and_the_old_id_resolves(self, store):
        old = store.upsert(draft(observation_count=3, confidence="high"), T0).entry_id
        store.record_recall([old], T0 + timedelta(minutes=5))
        store.set_anchors(old, [ANCHOR])
        store.set_vector(old, [1.0, 0.0])
        when = T0 + timedelta(days=1)
        edited = draft("Never split CSV rows by hand: quoted fields hold commas", confidence="medium")
        new = store.replace_text(old, edited, event(edited.entry_id, "edited", when, old_id=old))
        assert new is not None and new.id == edited.entry_id != old
        assert new.description == edited.description
        assert (new.observation_count, new.recall_count, new.confidence, new.anchors) == (3, 1, "high", (ANCHOR,))
        assert (new.created_at, new.updated_at, new.last_recalled_at) == (T0, when, T0 + timedelta(minutes=5))
        assert store.get(new.id) == new
        assert store.get(old) is None and store.count() == 1
        assert store.resolve(old) == new.id and store.resolve(new.id) == new.id
        assert store.resolve(UNKNOWN_ID) == UNKNOWN_ID
        assert store.aliases() == {old: new.id}
        assert [i for i, _ in store.vectors()] == [], "the new text is embedded anew"
        assert set(store.keyword_search("quoted OR commas", 10)) == {new.id}

    def test_a_second_edit_re_points_every_older_id_and_history_follows_them_all(self, store):
        first = store.upsert(draft(), T0).entry_id
        second_draft, third_draft = draft("Second wording of the CSV rule"), draft("Third wording of the CSV rule")
        second = store.replace_text(first, second_draft, event(second_draft.entry_id, "edited", T0 +
                                                               timedelta(hours=1), old_id=first)).id
        third = store.replace_text(second, third_draft, event(third_draft.entry_id, "edited", T0 +
                                                              timedelta(hours=2), old_id=second)).id
        assert store.aliases() == {first: third, second: third}
        assert store.resolve(first) == third
        assert [e.detail["old_id"] for e in store.history(first)] == [first, second]
        assert store.history(third) == store.history(first)

    def test_an_edit_undone_leaves_no_alias_cycle(self, store):
        original = draft()
        a = store.upsert(original, T0).entry_id
        b = store.replace_text(a, draft("A passing rewording"), event(a, "edited", old_id=a)).id
        back = store.replace_text(b, original, event(a, "edited", T0 + timedelta(hours=1), old_id=b))
        assert back.id == a
        assert (store.resolve(a), store.resolve(b)) == (a, a)
        assert store.aliases() == {b: a}

    def test_replace_text_refuses_an_unknown_old_id_and_a_taken_new_one(self, store):
        old = store.upsert(draft(), T0).entry_id
        taken = store.upsert(draft("Another learning entirely"), T0).entry_id
        assert store.replace_text(UNKNOWN_ID, draft("x y z"), event(UNKNOWN_ID, "edited")) is None
        assert store.replace_text(old, draft("Another learning entirely"), event(old, "edited")) is None
        assert store.replace_text(old, draft(), event(old, "edited")) is None, "the same text is no edit"
        retired_draft = draft("Retired wording")
        gone = store.upsert(retired_draft, T0).entry_id
        store.retire(gone, event(gone, "retired"))
        assert store.replace_text(old, retired_draft, event(old, "edited")) is None
        assert {e.id for e in store.all_entries()} == {old, taken}
        assert store.aliases() == {} and store.all_history() == [event(gone, "retired")]

    def test_a_persons_edit_takes_the_draft_as_given_and_the_anchors_it_names(self, store):
        old = store.upsert(draft(confidence="high", reasoning="Quoted fields hold commas."), T0).entry_id
        store.set_anchors(old, [ANCHOR])
        fresh = Anchor("src/quote.py", "d" * 40, None, "git:" + "a" * 40, "c" * 40)
        edited = draft("Let the csv module split rows", confidence="low", reasoning="", keywords=[],
                       references=["src/quote.py"])
        new = store.replace_text(old, edited, event(edited.entry_id, "edited", old_id=old), as_given=True,
                                 anchors=[fresh])
        assert (new.confidence, new.reasoning, new.keywords, new.references) == ("low", "", [], ["src/quote.py"])
        assert new.anchors == (fresh,) and store.get(new.id) == new and store.resolve(old) == new.id

    def test_a_persons_edit_of_the_same_description_rewrites_the_entry_in_place(self, store):
        entry_id = store.upsert(draft(observation_count=4, confidence="high", scope="git:" + "e" * 40), T0).entry_id
        store.add_scope(entry_id, "git:" + "f" * 40)
        store.record_recall([entry_id], T0 + timedelta(minutes=5))
        store.set_anchors(entry_id, [ANCHOR])
        store.set_vector(entry_id, [1.0, 0.0])
        store.queue_markdown(None)
        when = T0 + timedelta(days=1)
        renamed = draft(name="CSV rows are split by the csv module", category="heuristics", confidence="low",
                        scope="git:" + "e" * 40)
        new = store.replace_text(entry_id, renamed, event(entry_id, "edited", when, old_id=entry_id,
                                                          new_id=entry_id), as_given=True)
        assert new.id == entry_id and store.count() == 1 and store.aliases() == {}
        assert (new.name, new.category, new.confidence) == ("CSV rows are split by the csv module", "heuristics",
                                                            "low")
        assert (new.observation_count, new.recall_count, new.created_at, new.updated_at, new.anchors) == (
            4, 1, T0, when, (ANCHOR,))
        assert store.get(entry_id) == new and [i for i, _ in store.vectors()] == [], "the new name is embedded anew"
        assert entry_id in {s.id for s in store.ranking_stats(["git:" + "f" * 40])}, "its scopes stay"
        assert [e.action for e in store.history(entry_id)] == ["edited"]
        assert [(t.entry_id, t.category) for t in store.pending_audit(10)] == [(entry_id, "anti-patterns")], \
            "queued under its old category, so the old block leaves that file"
        assert store.replace_text(entry_id, renamed, event(entry_id, "edited")) is None, "not a person's: no edit"

    def test_resolve_survives_an_alias_cycle_made_by_hand(self, store):
        a, b = "aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"
        store.apply_history([], [], {a: b, b: a})
        assert store.resolve(a) in (a, b) and store.resolve(b) in (a, b)
        assert set(store.aliases()) == {a, b}

    # -- history ---------------------------------------------------------------------------
    def test_history_is_oldest_first_with_its_details(self, store):
        entry_id = store.upsert(draft(), T0).entry_id
        later, earlier = event(entry_id, "merged", T0 + timedelta(hours=2), **{"from": "x"}), event(
            entry_id, "confirmed", T0 + timedelta(hours=1))
        store.record_event(later)
        store.record_event(earlier)
        store.record_event(event(UNKNOWN_ID, "retired", T0))
        assert store.history(entry_id) == [earlier, later]
        assert store.all_history() == [event(UNKNOWN_ID, "retired", T0), earlier, later]
        assert store.history("f" * 16) == []

    # -- import and delete -----------------------------------------------------------------
    def test_import_skips_retired_and_edited_away_ids(self, store):
        retired_draft, old_draft = draft("Retired learning"), draft("Old wording")
        gone = store.upsert(retired_draft, T0).entry_id
        store.retire(gone, event(gone, "retired"))
        old = store.upsert(old_draft, T0).entry_id
        new = store.replace_text(old, draft("New wording"), event(old, "edited")).id
        fresh = draft("A learning never seen")
        outcomes = store.import_entries([(retired_draft, None), (old_draft, None), (fresh, None)], T0)
        assert [(o.entry_id, o.status) for o in outcomes] == [(gone, "retired"), (old, "retired"),
                                                              (fresh.entry_id, "new")]
        assert {e.id for e in store.all_entries()} == {new, fresh.entry_id}

    def test_delete_removes_a_retired_entry_and_the_aliases_of_an_edited_one(self, store):
        gone = store.upsert(draft("Retired learning"), T0).entry_id
        store.retire(gone, event(gone, "retired"))
        assert store.delete(gone) is True
        assert store.retired(gone) is None and gone in store.deleted_ids()
        assert store.delete(gone) is False
        old = store.upsert(draft("Old wording"), T0).entry_id
        new = store.replace_text(old, draft("New wording"), event(old, "edited")).id
        assert store.delete(new) is True
        assert store.aliases() == {} and store.resolve(old) == old

    # -- rebuild ---------------------------------------------------------------------------
    def test_apply_history_puts_back_events_retired_entries_and_aliases_once(self, store, make_store, backend):
        entry_id = store.upsert(draft(observation_count=4), T0).entry_id
        store.set_anchors(entry_id, [ANCHOR])
        retired = store.retire(entry_id, event(entry_id, "retired", reason="stale"), superseded_by=UNKNOWN_ID)
        events = [event(entry_id, "retired", reason="stale"), event("1" * 16, "edited", T0, old_id="2" * 16)]
        aliases = {"2" * 16: "1" * 16}
        store.delete(entry_id)  # forgets the retired row (the history stays)
        rebuilt = make_store(backend)
        for _ in range(2):
            rebuilt.apply_history(events, [retired], aliases)
        assert rebuilt.all_history() == events, "the retired event already there is not doubled"
        again = rebuilt.retired(entry_id)
        assert (again.entry.observation_count, again.entry.anchors, again.reason, again.superseded_by) == (
            4, (ANCHOR,), "stale", UNKNOWN_ID)
        assert len(rebuilt.retired_entries()) == 1 and rebuilt.aliases() == aliases
        assert rebuilt.import_entries([(draft(observation_count=4), None)], T0)[0].status == "retired"

    def test_apply_history_puts_a_restored_entry_back_live_only_where_the_store_lacks_its_id(self, store):
        """A bank entry restored after its block left the bank: only the history file keeps it. A store that
        holds its id in any state (live, retired, edited away, deleted) keeps what it holds."""
        back = store.upsert(draft("Restored by hand", source="import", observation_count=3), T0).entry_id
        store.set_anchors(back, [ANCHOR])
        whole = store.get(back)
        store.connection.write(f"DELETE FROM entries WHERE id = {self.mark}", (back,))  # the database was lost
        for _ in range(2):
            store.apply_history([event(back, "restored")], [], {}, [whole])
        again = store.get(back)
        assert (again.description, again.source, again.observation_count, again.anchors, again.created_at) == (
            whole.description, "import", 3, (ANCHOR,), whole.created_at)
        assert [e.id for e in store.all_entries()] == [back] and store.all_history() == [event(back, "restored")]

        for state in ("retired", "edited", "deleted"):
            entry_id = store.upsert(draft(f"Restored by hand, then {state}", source="import"), T0).entry_id
            kept = store.get(entry_id)
            if state == "retired":
                store.retire(entry_id, event(entry_id, "retired"))
            elif state == "edited":
                store.replace_text(entry_id, draft("Restored, then edited"), event(entry_id, "edited"))
            else:
                store.delete(entry_id)
            store.apply_history([], [], {}, [kept])
            assert store.get(entry_id) is None, state

    # -- bank blocks -----------------------------------------------------------------------
    def test_bank_blocks_round_trip_per_bank(self, store):
        first = {("patterns", "WAL mode"): "1" * 16, ("anti-patterns", "CSV rows"): "2" * 16}
        store.set_bank_blocks("git:a|patterns.md", first)
        store.set_bank_blocks("git:b|patterns.md", {("patterns", "WAL mode"): "3" * 16})
        assert store.bank_blocks("git:a|patterns.md") == first
        store.set_bank_blocks("git:a|patterns.md", {("patterns", "WAL mode"): "4" * 16})
        assert store.bank_blocks("git:a|patterns.md") == {("patterns", "WAL mode"): "4" * 16}
        assert store.bank_blocks("git:b|patterns.md") == {("patterns", "WAL mode"): "3" * 16}
        assert store.bank_blocks("unknown") == {}


class TestSqliteEntryLifecycle(EntryLifecycleContract):
    backend = "sqlite"
    mark = json_param = "?"

    def test_anchors_that_are_not_json_read_as_none(self, store, tmp_path):
        entry_id = store.upsert(draft(), T0).entry_id
        raw = sqlite3.connect(str(tmp_path / "memory.db"))
        with raw:
            raw.execute("UPDATE entries SET anchors = '[{not json' WHERE id = ?", (entry_id,))
        raw.close()
        assert store.get(entry_id).anchors == ()

    def test_a_version_11_database_keeps_its_entries(self, store, make_store, tmp_path):
        ids = [store.upsert(draft(f"Learning number {n}"), T0).entry_id for n in range(3)]
        store.close()
        raw = sqlite3.connect(str(tmp_path / "memory.db"))
        with raw:
            for table in ("retired_entries", "entry_aliases", "entry_history", "bank_blocks"):
                raw.execute(f"DROP TABLE {table}")
            raw.execute("ALTER TABLE entries DROP COLUMN anchors")
            raw.execute("UPDATE _metadata SET value = '11' WHERE key = 'schema_version'")
        raw.close()
        reopened = make_store("sqlite")
        assert reopened.get_metadata("schema_version") == str(LATEST_VERSION)
        assert [e.id for e in reopened.all_entries()] == ids
        assert all(e.anchors == () for e in reopened.all_entries())
        assert reopened.retire(ids[0], event(ids[0], "retired")) is not None


class TestPostgresEntryLifecycle(EntryLifecycleContract):
    backend = "postgres"
    mark, json_param = "%s", "%s::jsonb"

    def test_a_version_4_database_keeps_its_entries(self, store, make_store):
        ids = [store.upsert(draft(f"Learning number {n}"), T0).entry_id for n in range(3)]

        def downgrade(conn) -> None:
            for table in ("retired_entries", "entry_aliases", "entry_history", "bank_blocks"):
                conn.execute(f"DROP TABLE {table}")
            conn.execute("ALTER TABLE entries DROP COLUMN anchors")
            conn.execute("DELETE FROM schema_migrations WHERE version >= 5")  # later ones are idempotent

        store.connection.transaction(downgrade)
        store.close()
        reopened = make_store("postgres")
        assert [e.id for e in reopened.all_entries()] == ids
        assert all(e.anchors == () for e in reopened.all_entries())
        assert reopened.retire(ids[0], event(ids[0], "retired")) is not None
