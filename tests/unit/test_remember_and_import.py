"""Remember (upsert by content hash) and ImportKnowledgeBank (idempotent markdown import, spec 001 D7/AC8)."""

from __future__ import annotations

import os

from memory_core.entries.knowledge import KnowledgeEntry
from memory_core.entries.models import EntryDraft
from memory_core.usecases.importing import ImportKnowledgeBank
from memory_core.usecases.remember import Remember
from tests.fakes import FakeClock, FakeKnowledgeBankReader, FakeProjectLayout, InMemoryEntryStore

ROOT = "/projects/my-app"
LOCAL = os.path.join(ROOT, "docs", "knowledge-bank")
GLOBAL = "/home/u/.claude/iflow/memory"


def draft(desc="Read the target file before writing a parser.", **kw):
    return EntryDraft(name="Read before parse", description=desc, category="heuristics", **kw)


def test_remember_creates_then_reinforces():
    store, clock = InMemoryEntryStore(), FakeClock()
    first = Remember(store, clock).run(draft())
    clock.advance(days=1)
    second = Remember(store, clock).run(draft("  READ the target file before writing a   parser. "))
    assert (first.created, first.observation_count) == (True, 1)
    assert (second.created, second.observation_count) == (False, 2)
    assert second.entry_id == first.entry_id and store.count() == 1
    assert store.get(first.entry_id).observation_count == 2


def test_remember_stores_only_valid_keywords():
    store = InMemoryEntryStore()
    result = Remember(store, FakeClock()).run(draft(keywords=["Parser Error", "code", '"json"', "fts5"]))
    assert store.get(result.entry_id).keywords == ["parser-error", "fts5"]


def ke(name, desc, category="patterns", obs=1):
    return KnowledgeEntry(name=name, category=category, description=desc, raw_text=f"### {name}\n{desc}",
                          observation_count=obs)


def bank():
    return FakeKnowledgeBankReader({
        LOCAL: [ke("Local one", "Use semantic anchors instead of line numbers.", "anti-patterns"),
                ke("Shared", "Read actual files before designing a parser.", obs=1),
                ke("Local two", "Keep review iterations short.", "heuristics")],
        GLOBAL: [ke("Shared", "read actual files before  designing a parser.", obs=3),
                 ke("Global only", "Pass values to inline Python via argv.")],
    })


def test_import_counts_new_entries_and_merges_duplicates():
    store = InMemoryEntryStore()
    report = ImportKnowledgeBank(bank(), store, FakeClock(), FakeProjectLayout()).run(ROOT, GLOBAL)
    assert (report.new, report.updated, report.unchanged, report.skipped) == (4, 0, 0, 0)
    assert report.duplicates == 1
    assert store.count() == 4
    shared = [e for e in store.all_entries() if e.name == "Shared"]
    assert len(shared) == 1 and shared[0].observation_count == 3
    assert all(e.source == "import" for e in store.all_entries())


def test_import_tags_local_entries_with_the_project():
    store = InMemoryEntryStore()
    ImportKnowledgeBank(bank(), store, FakeClock(), FakeProjectLayout()).run(ROOT, GLOBAL)
    by_name = {e.name: e for e in store.all_entries()}
    assert by_name["Local one"].source_project == "my-app"
    assert by_name["Global only"].source_project is None


def test_reimport_changes_nothing():
    store, clock = InMemoryEntryStore(), FakeClock()
    use = ImportKnowledgeBank(bank(), store, clock, FakeProjectLayout())
    use.run(ROOT, GLOBAL)
    before = {e.id: e for e in store.all_entries()}
    clock.advance(days=2)
    report = use.run(ROOT, GLOBAL)
    assert (report.new, report.updated, report.unchanged) == (0, 0, 4)
    assert {e.id: e for e in store.all_entries()} == before


def test_entry_with_empty_description_is_skipped_with_a_problem():
    reader = FakeKnowledgeBankReader({LOCAL: [ke("Empty one", "", "heuristics"), ke("Fine", "A real lesson.")]})
    store = InMemoryEntryStore()
    report = ImportKnowledgeBank(reader, store, FakeClock(), FakeProjectLayout()).run(ROOT, GLOBAL)
    assert (report.new, report.skipped) == (1, 1)
    assert len(report.problems) == 1
    assert "Empty one" in report.problems[0] and "description" in report.problems[0]
    assert [e.name for e in store.all_entries()] == ["Fine"]


class _Authors:
    """BankAuthorship with fixed verdicts per category, counting its calls."""

    def __init__(self, **verdicts: str) -> None:
        self.verdicts = {k.replace("_", "-"): v for k, v in verdicts.items()}
        self.calls = 0

    def authors(self, project_root, categories, timeout_s):
        from memory_core.ports.bank_authorship import BankAuthors

        self.calls += 1
        return BankAuthors({c: self.verdicts[c] for c in categories}, ("stranger@example.invalid",))


def _scopes(store) -> dict[str, object]:
    return {e.name: e.scope for e in store.all_entries()}


def test_each_bank_file_is_scoped_by_who_wrote_it_and_trust_widens_the_rest():
    from memory_core.policies.bank_trust import record_trust

    store, authors = InMemoryEntryStore(), _Authors(anti_patterns="own", heuristics="others", patterns="local")
    use = ImportKnowledgeBank(bank(), store, FakeClock(), FakeProjectLayout(), authorship=authors)
    report = use.run(ROOT, GLOBAL)
    assert report.banks == {"anti-patterns": "own", "heuristics": "others", "patterns": "local"}
    assert _scopes(store) == {"Local one": None, "Shared": None, "Local two": "path:" + ROOT, "Global only": None}
    assert "heuristics" in store.get_metadata("bank:path:" + ROOT) and authors.calls == 1

    record_trust(store, "path:" + ROOT, ROOT, "2026-11-01T00:00:00Z")
    assert use.run(ROOT, GLOBAL).updated == 1 and authors.calls == 1, "trusted: no git, every file wide"
    assert set(_scopes(store).values()) == {None}


def test_what_the_global_store_lists_stays_universal_even_in_a_strangers_bank():
    reader = FakeKnowledgeBankReader({LOCAL: [ke("Mine", "Retro learnings reach every project.", obs=5)],
                                      GLOBAL: [ke("Mine", "Retro learnings reach every project.", obs=2)]})
    store = InMemoryEntryStore()
    ImportKnowledgeBank(reader, store, FakeClock(), FakeProjectLayout(), authorship=_Authors(patterns="others")).run(
        ROOT, GLOBAL)
    assert _scopes(store) == {"Mine": None}


def test_a_bank_git_could_not_judge_is_judged_again_and_the_users_own_becomes_universal():
    """A slow git on the first session keeps the bank scoped for now, not for good: the import stays unmarked,
    and the next one (the background run's, with more time) widens the user's own entries."""
    store, authors = InMemoryEntryStore(), _Authors(anti_patterns="unknown", heuristics="unknown",
                                                patterns="unknown")
    use = ImportKnowledgeBank(bank(), store, FakeClock(), FakeProjectLayout(), authorship=authors)

    first = use.run(ROOT, GLOBAL)
    assert first.complete and first.banks["anti-patterns"] == "unknown"
    assert _scopes(store)["Local one"] == "path:" + ROOT, "unknown stays on the safe side meanwhile"
    assert not use.imported(ROOT), "nothing decided: the next import asks git again"

    authors.verdicts = {"anti-patterns": "own", "heuristics": "own", "patterns": "own"}
    second = use.run(ROOT, GLOBAL)

    assert second.updated == 2 and authors.calls == 2
    assert set(_scopes(store).values()) == {None}
    assert use.imported(ROOT)
