"""A bar chart of counts per day as plain geometry (the template draws it as inline SVG: no script, no chart
library). Two series side by side per day; every bar carries its own title for screen readers and hover."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Mapping, Sequence

WIDTH, HEIGHT = 640, 180
TOP, BOTTOM, LEFT, RIGHT = 10, 24, 36, 8
"""Margins: room for the top tick's label, the date labels below, the count labels at the left."""


@dataclass(frozen=True)
class Series:
    """One named series of counts per day (days without a count are 0)."""

    key: str
    label: str
    counts: Mapping[date, int]
    colour: str = "#4a7ab5"
    """An SVG fill (a presentation attribute: no inline style, fine under the CSP)."""


@dataclass(frozen=True)
class Bar:
    """One drawn bar: where, how big, and what it says."""

    series: str
    colour: str
    x: float
    y: float
    width: float
    height: float
    title: str


@dataclass(frozen=True)
class Tick:
    """A label on an axis, at a position."""

    x: float
    y: float
    text: str


@dataclass(frozen=True)
class DayRow:
    """One day's numbers, for the table beside the chart."""

    day: str
    counts: tuple[int, ...]


@dataclass(frozen=True)
class DayChart:
    """The chart's geometry and the same numbers as rows."""

    width: int
    height: int
    baseline: float
    left: float
    right: float
    bars: tuple[Bar, ...]
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    series: tuple[Series, ...]
    rows: tuple[DayRow, ...]
    totals: tuple[int, ...]
    first: date
    last: date

    @property
    def empty(self) -> bool:
        """No series counted anything in the window."""
        return not any(self.totals)


def days_chart(series: Sequence[Series], last: date, days: int = 30) -> DayChart:
    """Bars for each series on each of the `days` days ending `last` (inclusive), scaled to the largest count."""
    first = last - timedelta(days=days - 1)
    span = [first + timedelta(days=n) for n in range(days)]
    counts = [[max(0, int(s.counts.get(day, 0))) for day in span] for s in series]
    peak = max([1] + [c for row in counts for c in row])
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    slot = plot_w / days
    bar_w = slot * 0.8 / max(1, len(series))
    baseline = TOP + plot_h
    bars = []
    for s_index, s in enumerate(series):
        for d_index, day in enumerate(span):
            count = counts[s_index][d_index]
            if not count:
                continue
            height = plot_h * count / peak
            bars.append(Bar(s.key, s.colour, round(LEFT + d_index * slot + slot * 0.1 + s_index * bar_w, 2),
                            round(baseline - height, 2), round(bar_w, 2), round(height, 2),
                            f"{day.isoformat()}: {count} {s.label.lower()}"))
    label_every = max(1, days // 6)
    x_ticks = tuple(Tick(round(LEFT + (i + 0.5) * slot, 2), HEIGHT - 6, day.strftime("%b %d"))
                    for i, day in enumerate(span) if (days - 1 - i) % label_every == 0)
    y_ticks = (Tick(LEFT - 4, baseline, "0"), Tick(LEFT - 4, TOP + 8, str(peak)))
    rows = tuple(DayRow(day.isoformat(), tuple(c[i] for c in counts)) for i, day in enumerate(span)
                 if any(c[i] for c in counts))
    return DayChart(WIDTH, HEIGHT, baseline, LEFT, WIDTH - RIGHT, tuple(bars), x_ticks, y_ticks, tuple(series), rows,
                    tuple(sum(c) for c in counts), first, last)
