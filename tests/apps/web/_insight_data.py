"""Plain data for the Review, Sessions and Overview tests: entries, review queues, journal records, tallies."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

from memory_core.anchors.states import CHANGED, MISSING, MOVED, AnchorState
from memory_core.entries.browsing import Tallies
from memory_core.entries.records import Entry, RetiredEntry
from memory_core.session.journal import InjectionRecord, ShownMemory
from memory_core.usecases.lifecycle.review import DuplicatePair, ReviewQueues, StaleEntry

T0 = datetime(2026, 11, 20, 9, 30, tzinfo=timezone.utc)
HOSTILE_IMG = "<img src=x onerror=alert(1)>"
HOSTILE_SCRIPT = "<script>alert(2)</script>"


def entry(number: int, name: str, category: str = "patterns", recalls: int = 0, **fields) -> Entry:
    """An entry with the id `000000000000000N`-like 16 hex digits."""
    return Entry(id=f"{number:016x}", name=name, description=f"{name}.", category=category,
                 created_at=fields.pop("created_at", T0), updated_at=T0, recall_count=recalls, **fields)


def queues() -> ReviewQueues:
    """One of each queue: a stale entry with a changed and a missing citation, a pair, a superseded entry."""
    stale = entry(0xA1, HOSTILE_IMG)
    first = entry(0xB1, "Quote CSV fields").with_changes(source_project="shop")
    second = entry(0xB2, "Quote fields in CSV output").with_changes(source_project=None, source="retro")
    old = entry(0xC1, HOSTILE_SCRIPT)
    return ReviewQueues(
        stale=[StaleEntry(stale, (AnchorState("src/export.py:10", CHANGED), AnchorState("src/gone.py", MISSING),
                                  AnchorState("src/a.py", MOVED, "src/b.py")))],
        near_duplicates=[DuplicatePair(first, second, 0.934)],
        superseded=[RetiredEntry(old, T0, "superseded", superseded_by=f"{0xD1:016x}")])


def records() -> list[InjectionRecord]:
    """Two sessions and one `inject`: session s-1 has a start and a prompt, s-2 a file hook."""
    shown = (ShownMemory(f"{0xB1:016x}", HOSTILE_IMG, "patterns", 0.8123, 0.71,
                         {"meaning": 0.64, "keywords": 0.5, "prominence": 0.2}, "src/export.py changed since this was learned"),
             ShownMemory(f"{0xB2:016x}", "Quote fields", "heuristics", 0.5, None, {"references": 1.0}))
    return [
        InjectionRecord(T0, "session-start", "shop", "memory: 2 shown", shown, "s-1"),
        InjectionRecord(T0 + timedelta(minutes=5), "prompt", "shop", f"diag {HOSTILE_SCRIPT}", shown[:1], "s-1",
                        f"how do I {HOSTILE_IMG} export"),
        InjectionRecord(T0 + timedelta(hours=1), "file", HOSTILE_SCRIPT, "", (), "s-2", "src/export.py"),
        InjectionRecord(T0 - timedelta(days=1), "inject", "shop", "inject: 2 shown", shown, ""),
    ]


def tallies() -> Tallies:
    """A store of 12 entries in two projects and one without."""
    return Tallies(total=12, by_category={"patterns": 7, "heuristics": 3, "anti-patterns": 2},
                   by_project={"shop": 8, HOSTILE_IMG: 3, "": 1}, by_source={"manual": 9, "import": 3},
                   added_per_day={date(2026, 11, 19): 4, date(2026, 11, 20): 8}, recalled=5, never_recalled=7,
                   most_recalled=[entry(0xE1, "Most shown", recalls=9, last_recalled_at=T0)],
                   never_shown=[entry(0xE2, HOSTILE_SCRIPT, created_at=T0 - timedelta(days=40))])
