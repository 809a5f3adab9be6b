"""Anchors in markdown (ADR 26): the global store's blocks and an export carry an `- Anchors:` bullet the reader
takes back; a project's own bank never gets one; a retired or edited-away entry leaves the global markdown
without a tombstone."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from memory_adapters.markdown.audit_trail import MarkdownAuditTrail, entry_block, upsert_block
from memory_adapters.markdown.export import entry_markdown, export_history
from memory_adapters.markdown.history_file import read_history
from memory_adapters.markdown.knowledge_bank import MarkdownKnowledgeBankReader, parse_block, split_blocks
from memory_adapters.markdown.tombstones import read_tombstones
from memory_core.anchors.anchor import Anchor
from memory_core.entries.models import EntryDraft
from memory_core.entries.records import Entry, HistoryEvent, RetiredEntry

T0 = datetime(2026, 3, 1, 12, 30, 45, tzinfo=timezone.utc)
ANCHOR = Anchor("src/csv_reader.py#split_rows", "9f2c", "77aa", "github.com/acme/app", "c0ffee")


def _entry(text: str = "Never split CSV rows by hand.", **fields) -> Entry:
    draft = EntryDraft(name="CSV rows", description=text, category="anti-patterns",
                       references=["src/csv_reader.py#split_rows"])
    return Entry.from_draft(draft, T0).with_changes(anchors=(ANCHOR,), **fields)


def _parsed(text: str, origin: str):
    (block,) = split_blocks(text)
    return parse_block(block, "anti-patterns", 0, origin)


def test_global_blocks_carry_anchors_and_read_them_back():
    entry = _entry()
    parsed = _parsed(entry_block(entry, global_format=True), "global")
    assert parsed.anchors == (ANCHOR,) and parsed.rebuilds(entry, None)
    assert not any("Anchors" in detail for detail in parsed.details), "a field, not a detail bullet"


def test_a_project_bank_block_never_gets_anchors():
    entry = _entry()
    assert "Anchors" not in entry_block(entry, global_format=False)
    text = upsert_block("# Anti-Patterns\n", entry, global_format=False)
    assert "Anchors" not in text and _parsed(text.split("\n", 2)[2], "local").rebuilds(entry, None)


def test_an_export_carries_anchors():
    entry = _entry()
    assert _parsed(entry_markdown(entry), "local").anchors == (ANCHOR,)


def test_invalid_anchor_json_is_ignored():
    text = entry_block(_entry(), global_format=True).replace('"blob": "9f2c"', '"blob": ')
    assert _parsed(text, "global").anchors == ()
    mixed = entry_block(_entry(), global_format=True).replace("- Anchors: [", '- Anchors: [42, {"reference": "x"}, ')
    assert _parsed(mixed, "global").anchors == (ANCHOR,), "only the items that are anchors"


def test_a_global_block_whose_anchors_differ_is_rewritten():
    before = _entry()
    text = upsert_block("", before, global_format=True)
    confirmed = before.with_changes(anchors=(Anchor(ANCHOR.reference, "aaaa", "bbbb", ANCHOR.project),))
    after = upsert_block(text, confirmed, global_format=True)
    assert _parsed(after, "global").anchors == confirmed.anchors
    assert _parsed(upsert_block(after, confirmed.with_changes(anchors=()), True), "global").anchors == ()


def _trail(tmp_path: Path) -> tuple[MarkdownAuditTrail, Path, Path]:
    project, store = tmp_path / "proj", tmp_path / "store"
    project.mkdir()
    return MarkdownAuditTrail(str(store), str(project)), store, project / "docs" / "knowledge-bank"


def test_withdraw_removes_only_the_global_block_and_lists_no_deletion(tmp_path):
    trail, store, bank = _trail(tmp_path)
    keep, gone = _entry("Kept in both files."), _entry("Retired from the global file only.")
    trail.record(keep)
    trail.record(gone)
    trail.withdraw(gone.id, gone.category)
    reader = MarkdownKnowledgeBankReader(warn_unknown=False)
    assert [k.entry_id for k in reader.read(str(store), "global")] == [keep.id]
    assert {k.entry_id for k in reader.read(str(bank), "local")} == {keep.id, gone.id}, "the user's bank stays"
    assert read_tombstones(str(store)) == {}


def test_history_written_by_the_trail_and_by_export(tmp_path):
    trail, store, _ = _trail(tmp_path)
    gone = _entry("Retired and exported.")
    events = [HistoryEvent(gone.id, "retired", T0, "ana via cli", {"reason": "stale"})]
    trail.write_history(events, [RetiredEntry(gone, T0, "stale")])
    assert trail.history_count() == 1 and read_history(str(store)).retired[0].entry == gone
    path, count = export_history(str(tmp_path / "export"), events, [RetiredEntry(gone, T0, "stale")])
    assert count == 1 and read_history(str(tmp_path / "export")).retired[0].entry == gone
