"""The session block with the check's marks (issue 24): a marked entry shows its line in both styles, and when the
budget drops an entry that was ranked lower for citing only missing files, the diagnostic line counts it."""

from __future__ import annotations

from datetime import datetime, timezone

from memory_apps.session.injection import render_semantic_block
from memory_core.anchors.marks import AnchorMarks
from memory_core.entries.records import Entry
from memory_core.usecases.retrieve import RankedEntry, Retrieval

NOW = datetime(2024, 6, 1, tzinfo=timezone.utc)


def selection(count: int) -> Retrieval:
    entries = [Entry(id=f"{n:016x}", name=f"Learning {n}", description=f"Learning {n} says something. " * 8,
                     category="patterns", created_at=NOW, updated_at=NOW) for n in range(count)]
    return Retrieval(selected=[RankedEntry(e, 1.0 - n / 100) for n, e in enumerate(entries)], total=count,
                     context_query="csv")


def test_a_marked_entry_shows_its_line_in_either_style():
    marks = AnchorMarks({f"{1:016x}": "cites src/old.py, now src/new.py"})
    for style in ("full", "index"):
        block = render_semantic_block(selection(3), 0, style=style, marks=marks)
        assert block.count("- Code check: cites src/old.py, now src/new.py") == 1, style
        assert "| code:" not in block


def test_the_diagnostic_counts_the_lowered_entries_the_budget_left_out():
    last = f"{5:016x}"
    marks = AnchorMarks({last: "cites src/gone.py, which no longer exists"}, frozenset({last}))
    whole = render_semantic_block(selection(6), 0, marks=marks)
    assert "| code:" not in whole
    cut = render_semantic_block(selection(6), len(whole) // 2, marks=marks)
    assert "Learning 5" not in cut
    assert "| code: 1 citing only missing files ranked lower*" in cut


def test_a_skipped_check_is_said():
    block = render_semantic_block(selection(2), 0, marks=AnchorMarks(skipped=True))
    assert "| code: citations not checked (no time left)*" in block
