"""Edit-aware import (issue 24, ADR 26): a block edited under its heading updates its entry, a block gone from its
bank is retired (restorable), and a block coming back restores what an import retired. Against a small in-memory
EntryLifecycle (the store's own is proven by the contract suite)."""

from __future__ import annotations

import json
import os
from typing import Optional

import pytest

from memory_core.entries.knowledge import KnowledgeEntry
from memory_core.entries.records import Entry, HistoryEvent, ImportOutcome
from memory_core.ports.entry_lifecycle import EntryLifecycle
from memory_core.usecases.bank_edits import BANKS_KEY, bank_key, plan_file
from memory_core.usecases.importing import ImportKnowledgeBank
from tests.fakes import FakeClock, FakeKnowledgeBankReader, FakeProjectLayout, InMemoryEntryStore
from tests.unit._lifecycle_fake import LifecycleStore

ROOT = "/projects/my-app"
OTHER = "/projects/other-app"
GLOBAL = "/home/u/.claude/iflow/memory"
IDENTITY = "path:" + ROOT


@pytest.fixture(autouse=True)
def user(monkeypatch):
    """History names `<user> via import`: the user is whoever the environment says first."""
    monkeypatch.setenv("LOGNAME", "ann")


def bank_dir(root: str = ROOT) -> str:
    return os.path.join(root, "docs", "knowledge-bank")


class BankStore(LifecycleStore):
    """The lifecycle fake plus what an import uses of it: edits, bank records, and imports that skip retired ids."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks: dict[str, dict] = {}
        self.block_reads = 0

    def import_entries(self, items, now):
        skipped = [d for d, _ in items if d.entry_id in self.retired_by_id or d.entry_id in self.alias]
        outcomes = super().import_entries([i for i in items if i[0] not in skipped], now)
        return [ImportOutcome(d.entry_id, "retired") for d in skipped] + outcomes

    def replace_text(self, old_id, draft, event) -> Optional[Entry]:
        old = self.entries.get(old_id)
        if old is None or draft.entry_id in self.entries or draft.entry_id in self.retired_by_id:
            return None
        new = Entry.from_draft(draft, event.at).with_changes(
            created_at=old.created_at, updated_at=old.updated_at, recall_count=old.recall_count,
            last_recalled_at=old.last_recalled_at, anchors=old.anchors, source=old.source)
        del self.entries[old_id]
        self.entries[new.id] = new
        self.alias = {k: (new.id if v == old_id else v) for k, v in self.alias.items() if k != new.id}
        self.alias[old_id] = new.id
        self.events.append(event)
        return new

    def all_history(self):
        return list(self.events)

    def apply_history(self, events, retired, aliases, restored=()) -> None:
        raise NotImplementedError("a rebuild is not an import")

    def bank_blocks(self, bank: str):
        self.block_reads += 1
        return dict(self.blocks.get(bank, {}))

    def set_bank_blocks(self, bank: str, blocks) -> None:
        self.blocks[bank] = dict(blocks)


def ke(name, desc, category="patterns", obs=1):
    return KnowledgeEntry(name=name, category=category, description=desc, raw_text=f"### {name}\n{desc}",
                          observation_count=obs)


PARSER = ke("Parser errors", "Report parser errors with the line number.", obs=2)
RETRY = ke("Retries", "Retry network calls with backoff.")
TESTS = ke("Fast tests", "Keep unit tests under a second.", "heuristics")


def run(store, banks: dict, clock: Optional[FakeClock] = None):
    reader = FakeKnowledgeBankReader(banks)
    use = ImportKnowledgeBank(reader, store, clock or FakeClock(), FakeProjectLayout())
    return use.run(ROOT, GLOBAL)


def by_name(store) -> dict[str, Entry]:
    return {e.name: e for e in store.all_entries()}


def test_the_fake_is_a_lifecycle_store():
    assert isinstance(BankStore(), EntryLifecycle)


def test_an_edited_description_updates_the_one_entry_and_keeps_its_counts():
    store, clock = BankStore(), FakeClock()
    run(store, {bank_dir(): [PARSER, RETRY, TESTS]}, clock)
    old = by_name(store)["Parser errors"]
    store.record_recall([old.id], clock.now())
    clock.advance(days=1)
    edited = PARSER.model_copy(update={"description": "Report parser errors with the line and column."})

    report = run(store, {bank_dir(): [edited, RETRY, TESTS]}, clock)

    assert (report.edited, report.new, report.retired) == (1, 0, 0)
    assert store.count() == 3
    now = by_name(store)["Parser errors"]
    assert now.id == edited.entry_id and now.description.endswith("line and column.")
    assert (now.observation_count, now.recall_count) == (2, 1)
    assert store.resolve(old.id) == now.id
    event = store.events[-1]
    assert (event.action, event.actor, event.detail["old_id"], event.detail["new_id"]) == (
        "edited", "ann via import", old.id, now.id)
    assert event.detail["old_description"] == PARSER.description and event.detail["file"] == "patterns.md"
    again = run(store, {bank_dir(): [edited, RETRY, TESTS]}, clock)
    assert (again.edited, again.new, again.unchanged) == (0, 0, 3)


def test_an_edit_keeps_the_larger_observation_count():
    store = BankStore()
    run(store, {bank_dir(): [PARSER]})
    edited = PARSER.model_copy(update={"description": "Parser errors name the line.", "observation_count": 5})
    assert run(store, {bank_dir(): [edited]}).edited == 1
    assert by_name(store)["Parser errors"].observation_count == 5


def test_a_heading_respaced_or_recased_is_the_same_block():
    store = BankStore()
    run(store, {bank_dir(): [PARSER]})
    edited = ke("parser   ERRORS", "Parser errors name the line.")
    assert run(store, {bank_dir(): [edited]}).edited == 1 and store.count() == 1


def test_a_removed_block_is_retired_not_deleted_and_its_return_restores_it():
    store = BankStore()
    run(store, {bank_dir(): [PARSER, RETRY]})
    report = run(store, {bank_dir(): [PARSER]})
    assert (report.retired, store.count()) == (1, 1)
    gone = store.retired(RETRY.entry_id)
    assert gone is not None and gone.reason == "removed from patterns.md" and store.deleted_ids == set()
    assert store.events[-1].action == "retired" and store.events[-1].actor == "ann via import"

    back = run(store, {bank_dir(): [PARSER, RETRY]})  # a branch switched back, the block undeleted
    assert (back.restored, back.new, store.count()) == (1, 0, 2)
    assert store.retired(RETRY.entry_id) is None


def test_an_entry_the_user_retired_stays_retired_when_its_block_comes_back():
    store, clock = BankStore(), FakeClock()
    run(store, {bank_dir(): [PARSER, RETRY]})
    store.retire(RETRY.entry_id, HistoryEvent(RETRY.entry_id, "retired", clock.now(), "ann via cli",
                                              {"reason": "wrong"}))
    run(store, {bank_dir(): [PARSER]})
    report = run(store, {bank_dir(): [PARSER, RETRY]})
    assert (report.restored, report.still_retired, store.count()) == (0, 1, 1)


def test_the_first_import_of_a_bank_only_records_it():
    store = BankStore()
    store.import_entries([(ke("Old", "An entry stored before records existed.").to_draft(None), None)],
                         FakeClock().now())
    report = run(store, {bank_dir(): [PARSER]})
    assert (report.new, report.edited, report.retired) == (1, 0, 0)
    assert store.blocks[bank_key(IDENTITY, "patterns")] == {("patterns", "parser errors"): PARSER.entry_id}
    assert store.count() == 2


def test_a_renamed_heading_with_the_same_text_changes_nothing():
    store = BankStore()
    run(store, {bank_dir(): [PARSER]})
    report = run(store, {bank_dir(): [PARSER.model_copy(update={"name": "Line numbers in parser errors"})]})
    assert (report.edited, report.retired, report.new, report.unchanged) == (0, 0, 0, 1)


def test_a_renamed_heading_with_a_new_text_is_a_new_learning_and_the_old_one_retires():
    store = BankStore()
    run(store, {bank_dir(): [PARSER]})
    report = run(store, {bank_dir(): [ke("Column numbers", "Parser errors name the column too.")]})
    assert (report.edited, report.retired, report.new) == (0, 1, 1)
    assert store.retired(PARSER.entry_id) is not None


def test_a_text_still_elsewhere_in_the_bank_is_neither_edited_away_nor_retired():
    store = BankStore()
    run(store, {bank_dir(): [PARSER, TESTS]})
    moved = PARSER.model_copy(update={"category": "heuristics"})  # the block moved to heuristics.md
    report = run(store, {bank_dir(): [TESTS, moved]})
    assert (report.retired, report.edited, store.count()) == (0, 0, 2)
    swapped = [PARSER.model_copy(update={"name": "Retries"}), RETRY.model_copy(update={"name": "Parser errors"})]
    run(store, {bank_dir(): [PARSER, RETRY]})
    assert run(store, {bank_dir(): swapped}).edited == 0 and store.count() == 3


def test_headings_a_file_holds_twice_are_ambiguous():
    store = BankStore()
    twin = ke("Parser errors", "Parser errors go to stderr.")
    run(store, {bank_dir(): [PARSER, twin, RETRY]})
    assert store.blocks[bank_key(IDENTITY, "patterns")] == {("patterns", "retries"): RETRY.entry_id}
    report = run(store, {bank_dir(): [ke("Parser errors", "Parser errors go to the log."), twin, RETRY]})
    assert (report.edited, report.new, report.retired) == (0, 1, 0)
    assert store.count() == 4


def test_what_the_global_markdown_or_another_bank_holds_is_not_retired():
    store = BankStore()
    run(store, {bank_dir(): [PARSER, RETRY, TESTS], GLOBAL: [RETRY]})
    reader = FakeKnowledgeBankReader({bank_dir(OTHER): [TESTS]})
    ImportKnowledgeBank(reader, store, FakeClock(), FakeProjectLayout()).run(OTHER, GLOBAL)
    assert bank_key("path:" + OTHER, "heuristics") in json.loads(store.get_metadata(BANKS_KEY))

    report = run(store, {bank_dir(): [PARSER, ke("Other", "A second heuristic.", "heuristics")], GLOBAL: [RETRY]})
    assert (report.retired, report.new) == (0, 1)
    assert store.count() == 4


def test_an_unchanged_bank_reads_one_record_per_file_and_writes_none():
    store = BankStore()
    run(store, {bank_dir(): [PARSER, RETRY, TESTS]})
    written = dict(store.blocks)
    store.blocks = {k: dict(v) for k, v in written.items()}
    store.block_reads = 0
    calls = []
    store.set_bank_blocks = lambda bank, blocks: calls.append(bank)
    store.retired_entries = lambda: calls.append("retired_entries") or []
    report = run(store, {bank_dir(): [PARSER, RETRY, TESTS]})
    assert (report.unchanged, store.block_reads, calls) == (3, 2, [])


def test_an_interrupted_import_records_nothing_and_the_next_one_finishes_the_work():
    from memory_core.session.deadline import Deadline
    from tests.fakes import FakeTicker

    store = BankStore()
    run(store, {bank_dir(): [PARSER, RETRY]})
    edited = PARSER.model_copy(update={"description": "Parser errors name the line."})
    many = [ke(f"More {i}", f"Lesson number {i}.") for i in range(5)]
    reader = FakeKnowledgeBankReader({bank_dir(): [edited, *many]})
    use = ImportKnowledgeBank(reader, store, FakeClock(), FakeProjectLayout())
    first = use.run(ROOT, GLOBAL, deadline=Deadline(FakeTicker(start=10.0), 0.0), batch_size=2)
    assert (first.edited, first.retired, first.complete) == (1, 1, False)
    assert store.blocks[bank_key(IDENTITY, "patterns")] == {
        ("patterns", "parser errors"): PARSER.entry_id, ("patterns", "retries"): RETRY.entry_id}
    second = use.run(ROOT, GLOBAL)
    assert (second.edited, second.retired, second.new, second.complete) == (0, 0, 3, True)
    assert ("patterns", "more 4") in store.blocks[bank_key(IDENTITY, "patterns")]


def test_plan_of_a_file_without_record_edits_and_retires_nothing():
    plan = plan_file("patterns", IDENTITY, [PARSER], {}, {PARSER.entry_id})
    assert (plan.edits, plan.removed, plan.returned, plan.changed) == ([], [], [PARSER.entry_id], True)


def test_a_store_without_the_lifecycle_imports_as_before():
    store = InMemoryEntryStore()
    run(store, {bank_dir(): [PARSER]})
    report = run(store, {bank_dir(): [PARSER.model_copy(update={"description": "Parser errors name the line."})]})
    assert (report.new, report.edited, store.count()) == (1, 0, 2)


def test_an_edit_undone_brings_the_first_text_back_as_the_same_entry():
    store = BankStore()
    run(store, {bank_dir(): [PARSER]})
    edited = PARSER.model_copy(update={"description": "Parser errors name the line."})
    run(store, {bank_dir(): [edited]})
    report = run(store, {bank_dir(): [PARSER]})
    assert (report.edited, report.new, report.still_retired, store.count()) == (1, 0, 0, 1)
    assert store.get(PARSER.entry_id).observation_count == 2 and store.resolve(edited.entry_id) == PARSER.entry_id


def test_a_heading_given_a_text_stored_already_retires_its_old_text():
    store = BankStore()
    run(store, {bank_dir(): [PARSER, RETRY]})
    copied = RETRY.model_copy(update={"name": "Parser errors"})  # the block now says what "Retries" says
    report = run(store, {bank_dir(): [copied, RETRY]})
    assert (report.edited, report.retired, store.count()) == (0, 1, 1)
    assert store.retired(PARSER.entry_id).reason == "removed from patterns.md"
