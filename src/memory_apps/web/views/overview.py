"""The Overview page's data: the store's tallies (counts by category, project and source; the most recalled and
never-shown memories) and a chart of memories added and recalled per day."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Iterable, Mapping, Optional, Union
from urllib.parse import urlencode

from memory_apps.web.views.chart import DayChart, Series, days_chart
from memory_apps.web.views.entry_refs import EntryRef, Moment, entry_ref, moment
from memory_core.entries.browsing import Tallies
from memory_core.entries.records import Entry
from memory_core.safety.inert import one_line
from memory_core.session.journal import InjectionRecord, InjectionSummary

CHART_DAYS = 30
ADDED_COLOUR, RECALLED_COLOUR = "#3b6ea8", "#d08a2e"
NO_PROJECT = "(no project)"
EMPTY_TEXT = "No memories yet. Write one with `iflow-memory write`, or import a knowledge bank."


@dataclass(frozen=True)
class CountRow:
    """One label's count, its share of the whole, and the filtered listing it links to."""

    label: str
    count: int
    percent: int
    """Of the total, rounded; a bar's length."""
    href: Optional[str]
    """None for entries without a project: the listing has no filter for "none"."""


@dataclass(frozen=True)
class RankedEntry:
    """A memory in a most-recalled or never-shown list."""

    entry: EntryRef
    recalls: int
    last_shown: Optional[Moment]
    created: Optional[Moment]


@dataclass
class OverviewView:
    """The page's numbers."""

    total: int
    recalled: int
    never_recalled: int
    categories: list[CountRow] = field(default_factory=list)
    projects: list[CountRow] = field(default_factory=list)
    sources: list[CountRow] = field(default_factory=list)
    chart: Optional[DayChart] = None
    most_recalled: list[RankedEntry] = field(default_factory=list)
    never_shown: list[RankedEntry] = field(default_factory=list)
    journal_since: Optional[str] = None
    """The first day the journal holds (recalls before it are not in the chart); None for an empty journal."""
    empty_text: str = EMPTY_TEXT

    @property
    def empty(self) -> bool:
        """The store holds no live memory."""
        return self.total == 0


def recalled_per_day(records: Iterable[Union[InjectionRecord, InjectionSummary]]) -> dict[date, int]:
    """How many memories the journal's injections (records or their summaries) showed, per UTC day."""
    counts: Counter[date] = Counter()
    for record in records:
        shown = record.shown
        counts[record.at.astimezone(timezone.utc).date()] += shown if isinstance(shown, int) else len(shown)
    return dict(counts)


def overview_view(tallies: Tallies, records: Iterable[Union[InjectionRecord, InjectionSummary]], today: date,
                  days: int = CHART_DAYS) -> OverviewView:
    """The page's data from the store's tallies and the journal's records (or their summaries), the chart ending `today` (UTC)."""
    recalled = recalled_per_day(records)
    chart = days_chart([Series("added", "Added", tallies.added_per_day, ADDED_COLOUR),
                        Series("recalled", "Recalled", recalled, RECALLED_COLOUR)],
                       today, days)
    return OverviewView(
        total=tallies.total, recalled=tallies.recalled, never_recalled=tallies.never_recalled,
        categories=_rows(tallies.by_category, tallies.total, "category"),
        projects=_rows(tallies.by_project, tallies.total, "project"),
        sources=_rows(tallies.by_source, tallies.total, "source"),
        chart=chart,
        most_recalled=[_ranked(e) for e in tallies.most_recalled],
        never_shown=[_ranked(e) for e in tallies.never_shown],
        journal_since=min(recalled).isoformat() if recalled else None)


def _rows(counts: Mapping[str, int], total: int, field_name: str) -> list[CountRow]:
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [CountRow(one_line(label) if label else NO_PROJECT, count, round(100 * count / total) if total else 0,
                     _listing(field_name, label)) for label, count in ordered]


def _listing(field_name: str, value: str) -> Optional[str]:
    return f"/memories?{urlencode({field_name: value})}" if value else None


def _ranked(entry: Entry) -> RankedEntry:
    return RankedEntry(entry_ref(entry), entry.recall_count, moment(entry.last_recalled_at), moment(entry.created_at))


def utc_today(now: Optional[datetime] = None) -> date:
    """Today's UTC date (of `now` when given)."""
    return (now or datetime.now(timezone.utc)).astimezone(timezone.utc).date()
