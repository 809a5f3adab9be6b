"""Browsing the memory in a real browser (issue 25): search, filter, open a memory, and the launch token that
becomes a cookie. The store is the real knowledge bank plus learnings written in a small git project, three of
whose cited files changed since (tests/browser/_store.py); nothing here changes it."""

from __future__ import annotations

import pytest

from tests.browser._pages import heading, ids_by_name, listed, open_launch_url, path, submit, text
from tests.browser._store import BANK_PROJECT, STALE, WRITTEN

pytestmark = pytest.mark.slow

ENUM = "str(Enum) for String Extraction Instead of .value"
"""An anti-pattern of the real bank, found by its words."""


def search_form(page):
    return page.locator("form:has([name=q])").first


def test_a_search_lists_the_memory_its_words_name(page, viewer):
    page.goto(viewer.at("/memories"))
    everything = listed(page)
    form = search_form(page)
    form.locator("[name=q]").fill("enum string extraction")
    submit(page, form)

    found = listed(page)
    enum_id = ids_by_name(viewer.store)[ENUM]
    assert found and found[0] == enum_id, "the memory the words describe comes first"
    assert len(found) < len(everything), "a search narrows the listing"
    assert "q=enum" in page.url, "the search is in the address (a link to it shows the same)"
    assert search_form(page).locator("[name=q]").input_value() == "enum string extraction"
    assert page.locator(f"#memories tr[data-id='{enum_id}']").inner_text().count(enum_id) == 1, "the id is whole"


def test_a_written_learning_is_found_by_its_words(page, viewer):
    page.goto(viewer.at("/memories?q=dialect+sniff"))
    assert viewer.store.ids["moved"] in listed(page)


def test_the_category_filter_shows_that_category_only(page, viewer):
    page.goto(viewer.at("/memories"))
    form = page.locator("form:has([name=category])").first
    form.locator("[name=category]").select_option("anti-patterns")
    submit(page, form)

    shown = listed(page)
    anti_patterns = set(ids_by_name(viewer.store, "--category", "anti-patterns").values())
    assert shown and set(shown) <= anti_patterns
    assert len(shown) == min(len(anti_patterns), 50), "a full first page of them"
    assert not set(viewer.store.ids.values()) & set(shown), "the written learnings are patterns"


def test_the_stale_filter_shows_the_learnings_whose_code_changed(page, viewer):
    page.goto(viewer.at("/memories"))
    form = page.locator("form:has([name=stale])").first
    form.locator("[name=stale]").check()
    submit(page, form)

    assert sorted(listed(page)) == sorted(viewer.store.ids[key] for key in STALE)


def test_the_project_filter_keeps_the_banks_entries(page, viewer):
    page.goto(viewer.at(f"/memories?project={BANK_PROJECT}&sort=name"))
    shown = listed(page)
    assert shown and not set(viewer.store.ids.values()) & set(shown)


def test_opening_a_memory_shows_its_text_and_where_its_citation_went(page, viewer):
    moved = viewer.store.ids["moved"]
    page.goto(viewer.at("/memories?stale=1"))
    with page.expect_navigation():
        page.locator(f"#memories tr[data-id='{moved}'] a").first.click()

    name, description, cited = WRITTEN["moved"]
    assert path(page) == f"/memories/{moved}"
    assert heading(page) == name
    shown = text(page)
    assert description in shown and moved in shown
    assert cited in shown and "src/sniffing.py" in shown and "moved" in shown


def test_a_memory_opens_by_a_unique_prefix_of_its_id(page, viewer):
    moved = viewer.store.ids["moved"]
    response = page.goto(viewer.at(f"/memories/{moved[:8]}"))
    assert response.ok
    assert heading(page) == WRITTEN["moved"][0]


def test_the_printed_url_leaves_a_cookie_and_later_pages_need_no_token(chromium, context, viewer):
    page = context.new_page()
    open_launch_url(page, viewer.url)

    assert page.url == viewer.at("/memories"), "the token is gone from the address; / is the listing"
    [cookie] = context.cookies(viewer.base)
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert page.evaluate("document.cookie") == "", "no script on the page can read it"
    response = page.goto(viewer.at("/review"))
    assert response.ok and heading(page) == "Review"

    stranger = chromium.new_context()
    try:
        other = stranger.new_page()
        refused = other.goto(viewer.at("/memories"))
        assert refused.status == 403
        assert other.locator("#memories").count() == 0, "no memory reaches a browser without the token"
        assert "printed" in other.locator("h1").inner_text(), "it is told to open the printed URL"
    finally:
        stranger.close()


def test_the_launch_file_the_browser_is_given_signs_it_in(chromium, context, viewer, tmp_path, monkeypatch):
    # `ui` gives the browser a private file that refreshes to the printed URL (the token stays out of its command
    # line): a navigation another site started, on which a SameSite=Strict cookie would not be sent by a redirect.
    from pathlib import Path

    from memory_apps.web.server import launch_file

    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    page = context.new_page()
    with page.expect_navigation(url=viewer.at("/memories")) as landed:
        page.goto(Path(launch_file(viewer.url)).as_uri())

    assert landed.value.ok and heading(page) == "Memories" and len(listed(page)) > 0
