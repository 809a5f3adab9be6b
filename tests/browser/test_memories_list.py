"""How the Memories list reads in a real browser at 1280 px (issue 25 review): every sortable column title looks
like a link, dates and categories stay on one line, and the stale filter marks each memory with its citation's
state (changed, moved, missing)."""

from __future__ import annotations

import pytest

from tests.browser._pages import listed
from tests.browser._store import STALE

pytestmark = pytest.mark.slow

ONE_LINE_COLUMNS = ("category", "last shown", "updated")

LINES_OF_COLUMN = """(table, title) => {
  const titles = [...table.querySelectorAll("thead th")].map(th => th.textContent.replace(/[▲▼]/g, "").trim());
  const column = titles.indexOf(title);
  return [...table.querySelectorAll("tbody tr")].map(row => {
    const cell = row.children[column];
    const range = document.createRange();
    range.selectNodeContents(cell);
    // one rectangle per line the text takes (a wrapped "2026-11-\\n28" takes two)
    return [cell.textContent.trim(), new Set([...range.getClientRects()].map(r => Math.round(r.top))).size];
  });
}"""


def test_every_sortable_title_looks_like_a_link(page, viewer):
    page.goto(viewer.at("/memories"))
    looks = page.locator("#memories thead th a").evaluate_all("""links => links.map(a => {
        const style = getComputedStyle(a);
        return [a.textContent.trim(), style.textDecorationLine, style.color, style.cursor];
    })""")
    body_link = page.locator("#memories tbody td a").first.evaluate("a => getComputedStyle(a).color")
    assert len(looks) >= 6, looks
    for title, decoration, color, cursor in looks:
        assert "underline" in decoration and color == body_link and cursor == "pointer", (title, decoration, color)


@pytest.mark.parametrize("address", ["/memories", "/memories?sort=category", "/memories?stale=1"])
def test_dates_and_categories_stay_on_one_line(page, viewer, address):
    page.goto(viewer.at(address))
    table = page.locator("#memories")
    for title in ONE_LINE_COLUMNS:
        cells = table.evaluate(LINES_OF_COLUMN, title)
        assert cells, title
        wrapped = [text for text, lines in cells if lines > 1]
        assert not wrapped, f"{title} wraps: {wrapped}"
    if address == "/memories?sort=category":
        categories = {text for text, _ in table.evaluate(LINES_OF_COLUMN, "category")}
        assert "anti-patterns" in categories or "heuristics" in categories


def test_the_stale_filter_marks_each_memory_with_its_citation_state(page, viewer):
    page.goto(viewer.at("/memories?stale=1"))
    assert sorted(listed(page)) == sorted(viewer.store.ids[key] for key in STALE)
    for key in STALE:
        row = page.locator(f"#memories tr[data-id='{viewer.store.ids[key]}']")
        marks = row.locator(".mark").all_inner_texts()
        assert marks == [key], (key, marks)
        assert row.locator(".mark").get_attribute("title"), "the mark says what it means on hover"
