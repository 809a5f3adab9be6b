"""Screenshots of each page on the real knowledge bank (README links them), taken at 1280x900 as <page>.png into
the folder IFLOW_MEMORY_SCREENSHOTS names (`docs/screenshots` refreshes the README's), else the test's temporary
folder, so a test run leaves the tree as it was. A page is photographed only once it shows what it should, and
the browser reported no error on it (a Content-Security-Policy refusal is one)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.browser._pages import VIEWPORT, heading, injected_names, listed, text
from tests.browser._store import SESSION_ID, STALE, SUPERSEDED, WRITTEN
from tests.conftest import PROJECT_ROOT

pytestmark = pytest.mark.slow

SCREENSHOTS_VARIABLE = "IFLOW_MEMORY_SCREENSHOTS"


def memories(page, viewer) -> None:
    assert heading(page) == "Memories"
    assert len(listed(page)) == 50, "a full first page of the real bank"


def memory(page, viewer) -> None:
    name, description, _ = WRITTEN["moved"]
    assert heading(page) == name and description in text(page) and "src/sniffing.py" in text(page)


def review(page, viewer) -> None:
    assert heading(page) == "Review"
    shown = text(page)
    assert all(WRITTEN[key][0] in shown for key in STALE), "the three stale learnings are queued"
    assert SUPERSEDED[0] in shown
    queues = viewer.store.json("review")
    assert queues["near_duplicates"], "the learnings edited between the bank's snapshots"
    assert f"Near-duplicates ({len(queues['near_duplicates'])})" in shown


def sessions(page, viewer) -> None:
    assert heading(page) == "Sessions"
    shown = text(page)
    assert SESSION_ID in shown and injected_names(viewer.store.injected["session-start"])[0] in shown


def overview(page, viewer) -> None:
    assert heading(page) == "Overview"
    total = len(viewer.store.json("list"))
    assert f"{total:,}" in text(page) or str(total) in text(page), "the number of memories"
    assert "anti-patterns" in text(page) and "heuristics" in text(page)
    chart = page.locator("#per-day-chart").bounding_box()
    assert chart and chart["height"] < VIEWPORT["height"] / 2, "the chart is a small part of the page"
    for swatch in page.locator(".legend svg").all():
        box = swatch.bounding_box()
        assert box and box["width"] <= 20 and box["height"] <= 20, "a legend's swatch is the size of a letter"


PAGES = {"memories": ("/memories", memories), "memory": (None, memory), "review": ("/review", review),
         "sessions": ("/sessions", sessions), "overview": ("/overview", overview)}


@pytest.mark.parametrize("name", PAGES)
def test_each_page_is_photographed_once_it_shows_the_bank(page, viewer, name, tmp_path):
    path, check = PAGES[name]
    page.goto(viewer.at(path or f"/memories/{viewer.store.ids['moved']}"))
    page.wait_for_load_state("load")

    check(page, viewer)
    assert page.problems == [], f"the browser reported errors on {name}: {page.problems}"
    folder = Path(os.environ.get(SCREENSHOTS_VARIABLE) or tmp_path)
    folder = folder if folder.is_absolute() else PROJECT_ROOT / folder
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"))
    assert (folder / f"{name}.png").stat().st_size > 10_000, "a picture of a page, not an empty one"
