"""The markdown-only injector of spec 002: dedup, sort order, block format, tracking record."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from memory_core.entries.knowledge import KnowledgeEntry
from memory_core.ranking.legacy import deduplicate, format_legacy, legacy_select, legacy_sort_key, tracking_record

TITLE = "## Engineering Memory (from knowledge bank)"


def ke(name, category="anti-patterns", *, desc=None, obs=1, conf="medium", pos=0, last=None, origin="local"):
    desc = desc or f"{name} description."
    return KnowledgeEntry(name=name, category=category, description=desc, raw_text=f"### {name}\n{desc}",
                          observation_count=obs, confidence=conf, position=pos, last_observed=last, origin=origin)


def names(entries):
    return [e.name for e in entries]


def test_deduplicate_keeps_the_version_with_more_observations():
    local = ke("Local", desc="Same  Text here.", obs=1, origin="local")
    glob = ke("Global", desc="same text here.", obs=4, origin="global")
    other = ke("Other", obs=1)
    assert names(deduplicate([local, other, glob])) == ["Global", "Other"]
    local_wins = ke("Local", desc="same text here.", obs=5)
    assert names(deduplicate([local_wins, glob])) == ["Local"]


def test_deduplicate_keeps_distinct_entries():
    entries = [ke("A"), ke("B"), ke("C")]
    assert names(deduplicate(entries)) == ["A", "B", "C"]


def test_sort_observation_count_then_confidence():
    entries = [ke("low-1", obs=1, conf="high"), ke("top", obs=3, conf="low"),
               ke("mid-med", obs=2, conf="medium"), ke("mid-high", obs=2, conf="high")]
    assert names(sorted(entries, key=legacy_sort_key)) == ["top", "mid-high", "mid-med", "low-1"]


def test_sort_ties_put_later_file_position_first():
    entries = [ke("first", pos=0), ke("third", pos=2), ke("second", pos=1)]
    assert names(sorted(entries, key=legacy_sort_key)) == ["third", "second", "first"]


def test_sort_ties_put_later_last_observed_date_first():
    day = datetime(2026, 2, 1, tzinfo=timezone.utc)
    entries = [ke("old", last=day, origin="global", pos=5), ke("new", last=day + timedelta(days=3), origin="global", pos=0),
               ke("naive-mid", last=(day + timedelta(days=1)).replace(tzinfo=None), origin="global", pos=9)]
    assert names(sorted(entries, key=legacy_sort_key)) == ["new", "naive-mid", "old"]


def test_format_legacy_block_structure():
    selected = [ke("P1", "patterns"), ke("A1"), ke("A2"), ke("H1", "heuristics")]
    block = format_legacy(selected)
    expected = "\n".join([
        TITLE, "",
        "### Anti-Patterns to Avoid", "### A1\nA1 description.\n\n### A2\nA2 description.", "",
        "### Heuristics", "### H1\nH1 description.", "",
        "### Patterns to Follow", "### P1\nP1 description.", "",
        "---", ""])
    assert block == expected


def test_format_legacy_omits_empty_sections():
    block = format_legacy([ke("H1", "heuristics")])
    assert block.startswith(TITLE + "\n\n### Heuristics\n")
    assert "### Anti-Patterns to Avoid" not in block and "### Patterns to Follow" not in block
    assert block.endswith("\n---\n")


def test_format_legacy_empty_selection_is_empty_string():
    assert format_legacy([]) == ""


def test_legacy_select_fills_by_category_priority_after_min_three():
    entries = ([ke(f"A{n}", obs=1, pos=n) for n in range(6)]
               + [ke(f"H{n}", "heuristics", obs=9, pos=n) for n in range(5)]
               + [ke(f"P{n}", "patterns", obs=9, pos=n) for n in range(5)])
    chosen = legacy_select(entries, 11)
    counts = {c: sum(1 for e in chosen if e.category == c) for c in ("anti-patterns", "heuristics", "patterns")}
    assert counts == {"anti-patterns": 5, "heuristics": 3, "patterns": 3}
    assert len(legacy_select(entries, -1)) == len(entries)
    assert legacy_select(entries, 0) == []


def test_tracking_record_fields():
    selected = [ke("Over-Granular Tasks"), ke("Read Before Write", "heuristics", origin="global"),
                ke("Relative Paths", "patterns")]
    now = datetime(2026, 2, 17, 3, 45, 0, tzinfo=timezone(timedelta(hours=1)))
    record = tracking_record(selected, "my-ai-setup", now)
    assert record == {
        "timestamp": "2026-02-17T02:45:00Z",
        "project": "my-ai-setup",
        "entries_injected": 3,
        "sources": {"local": 2, "global": 1},
        "entry_names": ["Over-Granular Tasks", "Read Before Write", "Relative Paths"],
    }
