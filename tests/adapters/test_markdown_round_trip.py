"""Rebuilding from markdown is lossless (issue 11, item 3; ADR 15): what the audit trail writes, an import reads
back to the same fields and id, and a write or delete touches only its own entry's block."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from memory_adapters.project.git_project_layout import GitProjectLayout
from memory_adapters.markdown.audit_trail import (GLOBAL_HEADER, LOCAL_HEADER, MarkdownAuditTrail, entry_block,
                                                  remove_block, upsert_block)
from memory_adapters.markdown.knowledge_bank import MarkdownKnowledgeBankReader, block_spans, parse_block, split_blocks
from memory_adapters.store.sqlite.store import SqliteEntryStore
from memory_core.entries.knowledge import KnowledgeEntry
from memory_core.entries.models import CATEGORIES, EntryDraft
from memory_core.entries.records import Entry
from memory_core.usecases.importing import ImportKnowledgeBank
from tests.conftest import shared_fixture
from tests.fakes import FakeClock

T0 = datetime(2026, 3, 1, 12, 30, 45, 250_000, tzinfo=timezone.utc)
PROJECT = "proj"  # the project directory's name: what an import gives a local entry that names no project
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                        HealthCheck.filter_too_much])


def stored(**fields) -> Entry:
    """An entry as the database holds it after a write."""
    values = {"name": "Measure first", "description": "Profile before optimising.", "category": "patterns",
              "source_project": PROJECT, **fields}
    return Entry.from_draft(EntryDraft(**values), T0)


def expected(entry: Entry) -> tuple:
    """The fields a lossless rebuild gives back: all of them, the update time to the second."""
    return (entry.id, entry.name, entry.description, entry.reasoning, entry.category, entry.keywords,
            entry.references, entry.observation_count, entry.confidence, entry.source_project,
            entry.updated_at.astimezone(timezone.utc).replace(microsecond=0))


def imported(parsed: KnowledgeEntry) -> tuple:
    """What importing one parsed block stores (the importer's own mapping)."""
    draft = parsed.to_draft(PROJECT if parsed.origin == "local" else None)
    return (draft.entry_id, draft.name, draft.description, draft.reasoning, draft.category, draft.keywords,
            draft.references, draft.observation_count, draft.confidence, draft.source_project, parsed.last_observed)


def rebuilt(directory: Path, origin: str) -> list[tuple]:
    """Every entry an import of the directory's markdown would store, in file order."""
    return [imported(k) for k in MarkdownKnowledgeBankReader(warn_unknown=False).read(str(directory), origin)]


def trail_at(tmp_path: Path) -> tuple[MarkdownAuditTrail, Path, Path]:
    project, store = tmp_path / PROJECT, tmp_path / "store"
    project.mkdir()
    return MarkdownAuditTrail(str(store), str(project)), project / "docs" / "knowledge-bank", store


# -- the four reproduced findings ---------------------------------------------------------------------------------
def test_a_description_line_opening_an_html_comment_hides_no_entry(tmp_path):
    trail, local, store = trail_at(tmp_path)
    entries = [stored(name="Before", description="Keep generated files apart.", source_project=None),
               stored(name="Marker", description="Generated files start with a marker line:\n<!-- generated: keep",
                      source_project=None),
               stored(name="After", description="Entries written later are still entries.", source_project=None)]
    for entry in entries:
        trail.record(entry)

    assert rebuilt(local, "local") == [expected(e) for e in entries]
    assert rebuilt(store, "global") == [expected(e) for e in entries]


def test_a_stored_name_with_a_line_break_stays_one_entry_that_delete_removes(tmp_path):
    trail, local, _ = trail_at(tmp_path)
    entry = stored().with_changes(name="Split\n  name")  # a row written before names were one line
    for count in range(1, 5):
        trail.record(entry.with_changes(observation_count=count))

    assert rebuilt(local, "local") == [expected(entry.with_changes(name="Split name", observation_count=4))]
    trail.forget(entry.id, entry.category)
    assert rebuilt(local, "local") == []


def test_names_are_one_line():
    draft = EntryDraft(name="Split\n  name\r\n", description="Anything.", category="patterns")
    assert draft.name == "Split name"


def test_an_observation_count_line_in_the_reasoning_stays_reasoning(tmp_path):
    trail, local, _ = trail_at(tmp_path)
    entry = stored(reasoning="- Seen in three projects.\n- Observation count: 999", observation_count=2)
    trail.record(entry)

    assert rebuilt(local, "local") == [expected(entry)]


def test_multi_line_reasoning_keeps_its_lines(tmp_path):
    trail, local, _ = trail_at(tmp_path)
    entry = stored(reasoning="Two incidents:\n\n1. the cache hid a slow query\n   - measured first\n2. an index fixed")
    trail.record(entry)

    assert rebuilt(local, "local") == [expected(entry)]


def test_a_database_rebuilt_from_the_markdown_holds_the_same_entries(tmp_path):
    trail, _, store_dir = trail_at(tmp_path)
    store_dir.mkdir()
    drafts = [
        EntryDraft(name="Marker", description="Generated files start with:\n<!-- generated", category="patterns"),
        EntryDraft(name="Split\nname", description="Names are one line.", category="heuristics",
                   source_project=PROJECT),
        EntryDraft(name="Counted", description="Counts are counts.", category="anti-patterns",
                   reasoning="- Observation count: 999", keywords=["counts"], references=["a, b.md"]),
        EntryDraft(name="Lines", description="- a bullet first\n### not a header", category="patterns",
                   reasoning="First.\nSecond:\n- Tags: universal", confidence="high"),
    ]
    original = SqliteEntryStore(str(store_dir / "memory.db"))
    for draft in drafts:
        trail.record(original.get(original.upsert(draft, T0).entry_id))
    fresh = SqliteEntryStore(str(tmp_path / "rebuilt.db"))

    report = ImportKnowledgeBank(MarkdownKnowledgeBankReader(), fresh, FakeClock(), GitProjectLayout()).run(
        str(tmp_path / PROJECT), str(store_dir))

    assert (report.new, report.skipped) == (4, 0)
    assert sorted(map(expected, fresh.all_entries())) == sorted(map(expected, original.all_entries()))


# -- a write touches only its own block ---------------------------------------------------------------------------
def spans(text: str, category: str) -> dict[str, str]:
    """Each block's own text, by entry id."""
    lines = text.split("\n")
    return {parse_block(block, category, 0, "local").entry_id: "\n".join(lines[start:end])
            for start, end, block in block_spans(lines)}


NEIGHBOURS = [stored(name="First", description="An ordinary entry before."),
              stored(name="Tricky", description="Lines that look like markup:\n- Observation count: 7\n<!-- open\n"
                     "### Pattern: Not an entry\n  - indented\n\\- escaped", reasoning="- Observation count: 5"),
              stored(name="Last", description="An ordinary entry after.")]


def test_upsert_and_remove_of_a_markdown_looking_entry_leave_the_neighbours_byte_for_byte():
    text = LOCAL_HEADER.format(title="Patterns")
    for entry in NEIGHBOURS:
        text = upsert_block(text, entry, global_format=False)
    before = spans(text, "patterns")
    tricky = NEIGHBOURS[1]
    changed = tricky.with_changes(name="Tricky, renamed", reasoning="Now:\n- Confidence: high", observation_count=9,
                                  keywords=["markup"], confidence="low")

    updated = upsert_block(text, changed, global_format=False)
    after = spans(updated, "patterns")
    removed = remove_block(updated, tricky.id, "patterns")

    neighbours = (NEIGHBOURS[0].id, NEIGHBOURS[2].id)
    assert [after[i] for i in neighbours] == [before[i] for i in neighbours]
    assert [imported(parse_block(b, "patterns", 0, "local")) for b in split_blocks(updated)] == [
        expected(NEIGHBOURS[0]), expected(changed), expected(NEIGHBOURS[2])]
    assert removed == text.replace(before[tricky.id] + "\n\n", "")
    assert updated.replace(after[tricky.id] + "\n\n", "") == removed


def test_removing_an_entry_beside_a_commented_example_does_not_bring_the_example_back():
    example_block = "<!-- Example format:\n### Pattern: Example\nNot a real entry.\n-->"
    text = "# Patterns\n\n### Pattern: Real\nA real entry.\n- Observation count: 2\n\n" + example_block + "\n"
    real = parse_block(split_blocks(text)[0], "patterns", 0, "local")

    removed = remove_block(text, real.entry_id, "patterns")

    assert split_blocks(removed) == []
    assert example_block in removed


def test_a_new_entry_after_an_unclosed_comment_is_still_read():
    text = "# Patterns\n\n<!-- a note someone never closed\n"
    entry = stored()

    written = upsert_block(text, entry, global_format=False)

    assert [imported(parse_block(b, "patterns", 0, "local")) for b in split_blocks(written)] == [expected(entry)]
    assert written.startswith(text)


def test_reinforcing_a_hand_written_entry_keeps_its_own_lines():
    text = shared_fixture("knowledge-bank", "head", "patterns.md").read_text(encoding="utf-8")
    lines = text.split("\n")
    hand = next(k for k in map(lambda b: parse_block(b, "patterns", 0, "local"), split_blocks(text))
                if k.name == "Hook Schema Compliance")
    draft = hand.to_draft(PROJECT)
    entry = Entry.from_draft(draft, T0).with_changes(keywords=["hook-schema", "hooks"], observation_count=2)
    before = spans(text, "patterns")

    updated = upsert_block(text, entry, global_format=False)

    after = spans(updated, "patterns")
    assert {k: v for k, v in after.items() if k != entry.id} == {k: v for k, v in before.items() if k != entry.id}
    own = after[entry.id].split("\n")
    assert [line for line in own if line.startswith("  - ")] == [line for line in lines if line.startswith("  - ")
                                                                  and "hookSpecificOutput" in line]
    assert [imported(k) for k in (parse_block(b, "patterns", 0, "local") for b in split_blocks(updated))
            if k.entry_id == entry.id] == [expected(entry)]


def test_hand_written_bullets_that_resemble_the_encoded_forms_keep_their_old_meaning():
    block = ["### Pattern: Pair on parsers", "Two people read the grammar.", "- Name: Alice and Bob",
             "- Description: a plain remark", "- Reasoning: \"Quoted\" and then some", "- Observation count: 2"]

    parsed = parse_block(block, "patterns", 0, "local")

    assert (parsed.name, parsed.description, parsed.reasoning) == (
        "Pair on parsers", "Two people read the grammar.", '"Quoted" and then some')
    assert parsed.details == ["- Name: Alice and Bob", "- Description: a plain remark"]


def test_a_universal_tag_keeps_a_project_file_entry_universal_and_global_provenance_is_not_reasoning():
    block = ["### Pattern: Shared", "Shared text.", "- Source: other-project, Feature #7", "- Tags: universal"]

    local = parse_block(block, "patterns", 0, "local").to_draft(PROJECT)
    global_ = parse_block(block, "patterns", 0, "global").to_draft(None)

    assert (local.source_project, local.reasoning) == (None, "- Source: other-project, Feature #7")
    assert (global_.source_project, global_.reasoning) == (None, "")


# -- the property: every field of every storable entry ------------------------------------------------------------
MARKUP = st.sampled_from([
    "- Observation count: 999", "- Confidence: low", "- Last observed: 2001-01-01", "- Reasoning: x",
    '- Reasoning: "q"',
    '- Name: "n"', '- Description: "d"', '- Keywords: ["k"]', "- References: a, b", "- Source project: other",
    "- Source: x, retro", "- Tags: universal", "- Content-Hash: sha256:0", "- Observed in: F1", "- ", "-",
    "### Pattern: Fake", "### ", "<!--", "-->", "<!-- c -->", " <!-- x", "  - nested", "  ### h", "\\- esc",
    "\\\\### esc", "\\", '"', '"quoted"', "null", "[1]", "\r", "\r\n", "\u2028", "\x85", "\x0c", "\x1f", "\t", " ",
    "", "Heuristic: ", "Anti-Pattern: ", "Pattern: ", "é日本",
])
TEXT = st.one_of(
    st.text(max_size=30),
    st.lists(st.one_of(MARKUP, st.text(max_size=10)), min_size=1, max_size=8).map("\n".join),
    st.lists(st.one_of(MARKUP, st.text(max_size=10)), min_size=1, max_size=6).map("".join),
)
WHEN = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(timezone.utc))


@st.composite
def entries(draw, category: str, description=None) -> Entry:
    """Any entry the database can hold: built through EntryDraft, the one way in."""
    values = dict(name=draw(TEXT), description=draw(TEXT) if description is None else description,
                  reasoning=draw(TEXT), category=category, keywords=draw(st.lists(TEXT, max_size=4)),
                  references=draw(st.lists(TEXT, max_size=3)),
                  confidence=draw(st.sampled_from(["high", "medium", "low"])),
                  source=draw(st.sampled_from(["retro", "session-capture", "manual", "import"])),
                  source_project=draw(st.one_of(st.none(), TEXT)), observation_count=draw(st.integers(1, 1_000_000)))
    try:
        draft = EntryDraft(**values)
    except ValidationError:
        assume(False)
    return Entry.from_draft(draft, draw(WHEN))


def read_file(text: str, category: str, origin: str) -> list[tuple]:
    return [imported(parse_block(block, category, i, origin)) for i, block in enumerate(split_blocks(text))]


@FAST
@given(data=st.data(), category=st.sampled_from(CATEGORIES), global_format=st.booleans())
def test_an_entry_block_reads_back_to_every_field(data, category, global_format):
    entry = data.draw(entries(category))
    origin = "global" if global_format else "local"
    text = (GLOBAL_HEADER if global_format else LOCAL_HEADER).format(title="T") + "\n" + entry_block(
        entry, global_format) + "\n"

    assert read_file(text, category, origin) == [expected(entry)]


@FAST
@given(data=st.data(), category=st.sampled_from(CATEGORIES), global_format=st.booleans())
def test_upsert_and_remove_in_a_file_of_other_entries_round_trip_and_touch_only_their_block(
        data, category, global_format):
    origin = "global" if global_format else "local"
    others = data.draw(st.lists(entries(category), max_size=3, unique_by=lambda e: e.id))
    entry = data.draw(entries(category))
    assume(entry.id not in {o.id for o in others})
    changed = data.draw(entries(category, description=entry.description))
    text = (GLOBAL_HEADER if global_format else LOCAL_HEADER).format(title="T")
    for other in others:
        text = upsert_block(text, other, global_format)
    before = spans(text, category)

    added = upsert_block(text, entry, global_format)
    updated = upsert_block(added, changed, global_format)
    removed = remove_block(updated, entry.id, category)

    assert added.startswith(text.rstrip("\n"))
    assert read_file(added, category, origin) == [expected(e) for e in (*others, entry)]
    assert read_file(updated, category, origin) == [expected(e) for e in (*others, changed)]
    assert read_file(removed, category, origin) == [expected(e) for e in others]
    for result in (added, updated, removed):
        assert {k: v for k, v in spans(result, category).items() if k != entry.id} == before


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_an_entry_written_into_a_real_bank_leaves_every_hand_written_entry_as_it_was(data):
    text = shared_fixture("knowledge-bank", "v024", "patterns.md").read_text(encoding="utf-8")
    entry = data.draw(entries("patterns"))
    before = read_file(text, "patterns", "local")
    assume(entry.id not in {row[0] for row in before})

    written = upsert_block(text, entry, global_format=False)

    assert written.startswith(text.rstrip("\n"))
    assert read_file(written, "patterns", "local") == [*before, expected(entry)]
    assert read_file(remove_block(written, entry.id, "patterns"), "patterns", "local") == before


# -- export, then import: each entry keeps how it was stored and which projects see it (issue 21, 4.4) ------------
class _Authors:
    """BankAuthorship that calls every file of the bank the given verdict."""

    def __init__(self, verdict: str) -> None:
        self.verdict = verdict

    def authors(self, project_root, categories, timeout_s):
        from memory_core.ports.bank_authorship import BankAuthors

        return BankAuthors({c: self.verdict for c in categories})


def test_export_then_import_keeps_each_entrys_source_and_scope(tmp_path):
    from memory_adapters.markdown.export import export_markdown
    from memory_core.ports.bank_authorship import LOCAL, OTHERS

    scoped = "git:" + "c" * 40
    original = [stored(description="Retro learnings belong to every project.", source="retro"),
                stored(description="Captured in a session.", source="session-capture", category="heuristics"),
                stored(description="Only for the repository it came from.", source="import", scope=scoped)]
    export_markdown(original, str(tmp_path / "restored" / "docs" / "knowledge-bank"))
    (tmp_path / "global").mkdir()

    def imported(verdict: str) -> dict[str, tuple]:
        fresh = SqliteEntryStore(str(tmp_path / f"{verdict}.db"))
        report = ImportKnowledgeBank(MarkdownKnowledgeBankReader(), fresh, FakeClock(), GitProjectLayout(),
                                     authorship=_Authors(verdict)).run(str(tmp_path / "restored"),
                                                                       str(tmp_path / "global"))
        assert report.new == 3
        return {e.description: (e.source, e.scope) for e in fresh.all_entries()}

    assert imported(LOCAL) == {e.description: (e.source, e.scope) for e in original}, "the user's own export"
    stranger = GitProjectLayout().identity(str(tmp_path / "restored"))
    assert set(imported(OTHERS).values()) == {("import", stranger)}, \
        "a bank somebody else committed widens nothing and says nothing about how entries were stored"
