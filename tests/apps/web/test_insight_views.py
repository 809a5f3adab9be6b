"""The Review, Sessions and Overview view builders: plain data in, what the pages show out."""

from __future__ import annotations

from datetime import date, timedelta

from memory_apps.web.views.chart import Series, days_chart
from memory_apps.web.views.overview import NO_PROJECT, overview_view, recalled_per_day
from memory_apps.web.views.review import review_view
from memory_apps.web.views.sessions import NO_SESSION, sessions_view
from memory_core.entries.browsing import Tallies
from memory_core.session.journal import InjectionRecord, ShownMemory
from memory_core.usecases.lifecycle.review import ReviewQueues
from tests.apps.web._insight_data import HOSTILE_IMG, HOSTILE_SCRIPT, T0, queues, records, tallies


def test_review_view_keeps_each_queue_in_order_with_its_notes():
    view = review_view(queues())

    [stale] = view.stale
    assert stale.entry.id == f"{0xA1:016x}" and stale.entry.href == f"/memories/{0xA1:016x}"
    assert [(c.state, c.note) for c in stale.citations] == [
        ("changed", "src/export.py changed since this was learned"),
        ("missing", "cites src/gone.py, which no longer exists"),
        ("moved", "cites src/a.py, now src/b.py")]
    [pair] = view.pairs
    assert (pair.first.name, pair.second.name, pair.similarity_text) == (
        "Quote CSV fields", "Quote fields in CSV output", "0.93")
    [old] = view.superseded
    assert old.superseded_href == f"/memories/{0xD1:016x}" and old.retired_at.text == "2026-11-20 09:30 UTC"
    assert not view.empty


def test_review_view_of_nothing_is_empty_and_a_stored_non_id_is_no_link():
    assert review_view(ReviewQueues()).empty
    bent = queues()
    bent.superseded[0] = bent.superseded[0].__class__(bent.superseded[0].entry, T0, "", "javascript:alert(1)")
    assert review_view(bent).superseded[0].superseded_href is None


def test_names_lose_line_breaks_and_controls():
    bent = queues()
    bent.stale[0] = bent.stale[0].__class__(bent.stale[0].entry.with_changes(name="two\nlines\x1b[31m red"),
                                            bent.stale[0].states)
    assert review_view(bent).stale[0].entry.name == "two lines red"


def test_sessions_group_by_session_newest_first_and_newest_injection_first():
    view = sessions_view(records())

    assert [(g.title, g.project) for g in view.sessions] == [("s-2", HOSTILE_SCRIPT), ("s-1", "shop"),
                                                              (NO_SESSION, "shop")]
    s1 = view.sessions[1]
    assert [i.hook for i in s1.injections] == ["prompt", "session-start"]
    assert (s1.first.text, s1.last.text, s1.shown_count) == ("2026-11-20 09:30 UTC", "2026-11-20 09:35 UTC", 3)
    assert s1.href == "/sessions?session=s-1" and view.sessions[2].href is None
    prompt = s1.injections[0]
    assert (prompt.trigger_label, prompt.trigger) == ("Prompt", f"how do I {HOSTILE_IMG} export")
    assert view.sessions[0].injections[0].shown == ()


def test_a_shown_memory_has_every_signal_column_in_order_absent_ones_none():
    start = sessions_view(records()).sessions[1].injections[1]
    first, second = start.shown

    assert (first.rank, first.score, first.relevance.text, first.relevance.percent) == (1, "0.812", "0.71", 71)
    assert [s.text if s else None for s in first.signals] == ["0.64", "0.50", None, "0.20"]
    assert first.mark == "src/export.py changed since this was learned"
    assert second.relevance is None and [s.name if s else None for s in second.signals] == [
        None, None, "references", None]


def test_one_session_and_an_unknown_one():
    assert [g.session_id for g in sessions_view(records(), "s-2").sessions] == ["s-2"]
    unknown = sessions_view(records(), "nope")
    assert unknown.empty and unknown.session_id == "nope"
    assert sessions_view([]).empty


def test_signal_bars_are_clipped_to_their_scale():
    record = InjectionRecord(T0, "prompt", "p", "", (ShownMemory("0" * 16, "n", "patterns", 1.0, 1.7,
                                                                  {"meaning": -0.2}),), "s")
    [shown] = sessions_view([record]).sessions[0].injections[0].shown
    assert shown.relevance.percent == 100 and shown.signals[0].percent == 0


def test_overview_counts_shares_links_and_lists():
    view = overview_view(tallies(), records(), date(2026, 11, 20))

    assert (view.total, view.recalled, view.never_recalled) == (12, 5, 7)
    assert [(r.label, r.count, r.percent) for r in view.categories] == [
        ("patterns", 7, 58), ("heuristics", 3, 25), ("anti-patterns", 2, 17)]
    assert [(r.label, r.href) for r in view.projects] == [
        ("shop", "/memories?project=shop"),
        (HOSTILE_IMG, "/memories?project=%3Cimg+src%3Dx+onerror%3Dalert%281%29%3E"),
        (NO_PROJECT, None)]
    assert view.sources[0].href == "/memories?source=manual"
    assert [r.entry.name for r in view.most_recalled] == ["Most shown"] and view.most_recalled[0].recalls == 9
    assert view.never_shown[0].last_shown is None and view.journal_since == "2026-11-19"


def test_recalled_per_day_counts_shown_memories_by_utc_day():
    assert recalled_per_day(records()) == {date(2026, 11, 20): 3, date(2026, 11, 19): 2}


def test_the_chart_ends_today_and_holds_each_count_as_a_titled_bar():
    view = overview_view(tallies(), records(), date(2026, 11, 20), days=7)
    chart = view.chart

    assert (chart.first, chart.last, chart.totals) == (date(2026, 11, 14), date(2026, 11, 20), (12, 5))
    assert [b.title for b in chart.bars] == ["2026-11-19: 4 added", "2026-11-20: 8 added",
                                             "2026-11-19: 2 recalled", "2026-11-20: 3 recalled"]
    tallest = max(chart.bars, key=lambda b: b.height)
    assert tallest.title == "2026-11-20: 8 added" and tallest.y + tallest.height == chart.baseline
    assert [(r.day, r.counts) for r in chart.rows] == [("2026-11-19", (4, 2)), ("2026-11-20", (8, 3))]
    assert chart.y_ticks[-1].text == "8"


def test_chart_geometry_stays_inside_the_drawing_for_any_counts():
    day = date(2026, 1, 31)
    counts = {day - timedelta(days=n): n * 37 % 11 for n in range(40)}
    chart = days_chart([Series("a", "A", counts), Series("b", "B", {day: 1000})], day, 30)
    for bar in chart.bars:
        assert chart.left <= bar.x and bar.x + bar.width <= chart.right + 0.01
        assert 0 <= bar.y and bar.y + bar.height <= chart.baseline + 0.01 and bar.height > 0
    older = days_chart([Series("a", "A", {day - timedelta(days=31): 5})], day, 30)
    assert older.empty and older.bars == () and older.rows == ()


def test_an_empty_store_is_an_empty_overview():
    view = overview_view(Tallies(), [], date(2026, 11, 20))
    assert view.empty and view.chart.empty and view.journal_since is None
