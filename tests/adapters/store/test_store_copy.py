"""The copy's rules, on in-memory tables: which embedding spaces refuse a copy, what `_metadata` moves (never a
database's own keys, never "nothing pinned" over a pinned target), source_user, tombstones, and the entries' lives
(history, retired entries, aliases, bank blocks)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memory_adapters.store.copy.store_copy import CopyRefused, StoreCopy, check_spaces
from memory_adapters.store.copy.tables import CopiedEntry, CopiedLifecycle
from memory_core.entries.records import Entry, HistoryEvent, RetiredEntry

T0 = datetime(2024, 3, 1, tzinfo=timezone.utc)
LOCAL = {"embedding_provider": "local", "embedding_model": "bge-small", "embedding_dimensions": "384"}
OPENAI = {"embedding_provider": "openai", "embedding_model": "text-embedding-3-small", "embedding_dimensions": "1536"}


class MemoryTables:
    """CopyTables over dicts."""

    def __init__(self, entries=(), metadata=None, tombstones=None, keeps_source_user=False, name="memory",
                 life=None):
        self.description = name
        self.life = life or CopiedLifecycle()
        self.keeps_source_user = keeps_source_user
        self.rows = {c.entry.id: c for c in entries}
        self.meta = dict(metadata or {})
        self.dead = dict(tombstones or {})
        self.writes = 0

    def identity(self):
        return ("memory", id(self))

    def count(self):
        return len(self.rows)

    def entry_page(self, after, limit):
        page = list(self.rows.values())[after:after + limit]
        return page, after + len(page), len(page)

    def entries_by_id(self, ids):
        return {i: self.rows[i] for i in ids if i in self.rows}

    def tombstones(self):
        return dict(self.dead)

    def metadata(self):
        return dict(self.meta)

    def write_entries(self, entries):
        self.writes += 1
        self.rows.update({c.entry.id: c for c in entries})

    def write_tombstones(self, tombstones, removable):
        removed = [i for i in removable if i in self.rows and self.rows[i].entry.updated_at <= tombstones[i]]
        for i in removed:
            del self.rows[i]
        self.dead.update(tombstones)
        return len(removed)

    def set_metadata(self, key, value):
        self.meta[key] = value

    def lifecycle(self):
        return self.life

    def write_lifecycle(self, owed, unretired):
        self.writes += 1
        life = self.life
        retired = {r.entry.id: r for r in life.retired if r.entry.id not in unretired}
        retired.update({r.entry.id: r for r in owed.retired})
        for entry_id in retired:
            self.rows.pop(entry_id, None)
        self.life = CopiedLifecycle(life.events + owed.events, list(retired.values()),
                                    {**life.aliases, **owed.aliases}, {**life.bank_blocks, **owed.bank_blocks})


def entry(n: int, **changes) -> CopiedEntry:
    base = Entry(id=f"{n:016x}", name=f"entry {n}", description="a lesson", category="patterns",
                 created_at=T0, updated_at=T0 + timedelta(seconds=n))
    return CopiedEntry(base.with_changes(**changes))


def test_two_different_pinned_spaces_refuse_the_copy():
    with pytest.raises(CopyRefused, match="openai/text-embedding-3-small/1536.*local/bge-small/384"):
        check_spaces(LOCAL, OPENAI)


def test_a_staged_re_embed_into_another_space_refuses_the_copy_too():
    staged = {f"staged_{key}": value for key, value in LOCAL.items()}
    other = {f"staged_{key}": value for key, value in OPENAI.items()}
    with pytest.raises(CopyRefused, match="re-embed"):
        check_spaces(staged, other)


@pytest.mark.parametrize("target", [{}, LOCAL, {"embedding_provider": "none", "embedding_model": "none",
                                                 "embedding_dimensions": "0"}])
def test_the_same_space_or_none_on_one_side_is_accepted(target):
    check_spaces(LOCAL, target)
    check_spaces(target, LOCAL)


def test_a_database_s_own_keys_never_move_and_nothing_pinned_never_unpins_the_target():
    source = MemoryTables(metadata={"embedding_provider": "none", "embedding_model": "none",
                                    "embedding_dimensions": "0", "schema_version": "10", "database_id": "aaaa",
                                    "vectors_version": "7", "imported:/p": "2024-03-01T00:00:00Z"})
    target = MemoryTables(metadata={**LOCAL, "database_id": "bbbb", "vectors_version": "2"})
    report = StoreCopy(source, target, "alice").run()
    assert report.metadata_copied == ["imported:/p"]
    assert target.meta == {**LOCAL, "database_id": "bbbb", "vectors_version": "2", "imported:/p": "2024-03-01T00:00:00Z"}


def test_the_pinned_space_is_written_last_its_dimensions_at_the_very_end():
    target = MemoryTables()
    StoreCopy(MemoryTables(metadata={**LOCAL, "zzz": "1"}), target, "alice").run()
    assert list(target.meta)[-1] == "embedding_dimensions"


def test_entries_from_a_store_without_source_user_get_the_given_one_and_keep_one_already_recorded():
    source = MemoryTables([entry(1), entry(2)])
    target = MemoryTables([CopiedEntry(entry(2).entry, source_user="bob")], keeps_source_user=True)
    report = StoreCopy(source, target, "alice").run()
    assert (report.new, report.unchanged) == (1, 1)
    assert {i: c.source_user for i, c in target.rows.items()} == {entry(1).entry.id: "alice", entry(2).entry.id: "bob"}


def test_times_are_compared_to_the_second_so_a_second_run_writes_nothing():
    source = MemoryTables([entry(1, updated_at=T0 + timedelta(microseconds=420))])
    target = MemoryTables()
    copy = StoreCopy(source, target, "alice")
    assert copy.run().new == 1
    again = copy.run()
    assert (again.unchanged, again.changed, target.writes) == (1, False, 1)


def test_a_tombstone_deletes_an_older_target_entry_but_never_one_the_source_still_holds():
    gone, kept, newer = entry(1), entry(2), entry(3, updated_at=T0 + timedelta(days=9))
    source = MemoryTables([kept], tombstones={e.entry.id: T0 + timedelta(days=1) for e in (gone, kept, newer)})
    target = MemoryTables([gone, newer])
    report = StoreCopy(source, target, "alice").run()
    assert report.removed == 1 and report.tombstones_copied == 3
    assert set(target.rows) == {kept.entry.id, newer.entry.id}


def test_a_store_is_never_copied_into_itself():
    tables = MemoryTables([entry(1)])
    with pytest.raises(CopyRefused, match="the target is the source"):
        StoreCopy(tables, tables, "alice").run()


def test_the_entries_lives_are_copied_once_and_a_retirement_wins_over_a_live_row_copied_before():
    retired, live_again = entry(1), entry(2)
    at = T0 + timedelta(days=2, microseconds=300)
    life = CopiedLifecycle([HistoryEvent(retired.entry.id, "retired", at, "ana via cli", {"reason": "stale"})],
                           [RetiredEntry(retired.entry, at, "stale")], {"a" * 16: "b" * 16},
                           {"git:x|patterns.md": {("patterns", "entry 1"): retired.entry.id}})
    source = MemoryTables([live_again], life=life)
    target = MemoryTables([retired], life=CopiedLifecycle(retired=[RetiredEntry(live_again.entry, T0)]))
    copy = StoreCopy(source, target, "alice")
    report = copy.run()
    assert (report.history_copied, report.retired_copied, report.unretired, report.aliases_copied,
            report.bank_blocks_copied) == (1, 1, 1, 1, 1)
    assert set(target.rows) == {live_again.entry.id}, "retired in the source: out of the target's entries"
    assert [r.entry.id for r in target.life.retired] == [retired.entry.id]
    assert (target.life.aliases, target.life.bank_blocks) == (life.aliases, life.bank_blocks)
    writes = target.writes
    again = copy.run()
    assert (again.lifecycle_copied, again.changed, target.writes) == (0, False, writes), "times to the second"


def test_a_dry_run_counts_the_entries_lives_and_writes_none():
    life = CopiedLifecycle([HistoryEvent("1" * 16, "merged", T0, "ana via cli")], aliases={"a" * 16: "b" * 16})
    target = MemoryTables()
    report = StoreCopy(MemoryTables(life=life), target, "alice").run(dry_run=True)
    assert (report.history_copied, report.aliases_copied, report.changed, target.writes) == (1, 1, True, 0)
