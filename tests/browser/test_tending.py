"""Tending the memory in a real browser (issue 25): edit a learning, retire and restore one, confirm a stale one.
Each test has its own copy of the store and checks what the user sees, the database (`show --json` through the
CLI) and the global store's markdown (the audit trail)."""

from __future__ import annotations

import pytest

from tests.browser._pages import act, heading, listed, path, submit, text
from tests.browser._store import STALE, WRITTEN

pytestmark = pytest.mark.slow

EDITED = "Write every export through export() so line endings and the encoding stay the same."


def test_editing_a_learning_changes_the_database_and_the_markdown(own_page, own_viewer):
    store, old = own_viewer.store, own_viewer.store.ids["edit"]
    name, before, _ = WRITTEN["edit"]
    assert before in store.global_markdown()
    own_page.goto(own_viewer.at(f"/memories/{old}"))
    form = own_page.locator("#action-edit")
    assert form.locator("[name=description]").input_value() == before, "the form starts from the stored text"
    form.locator("[name=description]").fill(EDITED)
    submit(own_page, form)

    assert own_page.locator("#flash").is_visible()
    assert heading(own_page) == name and EDITED in text(own_page)
    shown = store.shown(old)
    assert shown["description"] == EDITED, "the old id resolves to the edited learning"
    assert shown["name"] == name
    assert path(own_page) == f"/memories/{shown['id']}", "the page of the learning as it is now"
    markdown = store.global_markdown()
    assert EDITED in markdown and before not in markdown


def test_retiring_and_restoring_a_learning(own_page, own_viewer):
    store, entry_id = own_viewer.store, own_viewer.store.ids["missing"]
    name = WRITTEN["missing"][0]
    own_page.goto(own_viewer.at(f"/memories/{entry_id}"))
    form = own_page.locator("#action-retire")
    if form.locator("[name=reason]").count():
        form.locator("[name=reason]").fill("the old exports are gone")
    submit(own_page, form)

    assert own_page.locator("#flash").is_visible()
    assert "retired" in text(own_page).lower()
    assert own_page.locator("#action-restore").count() == 1, "a retired learning offers restore, not retire"
    assert store.shown(entry_id)["retired"] is not None
    assert name not in store.global_markdown(), "its block leaves the global markdown"
    own_page.goto(own_viewer.at("/memories?q=legacy+splitter"))
    assert entry_id not in listed(own_page), "a retired learning is out of search"
    own_page.goto(own_viewer.at("/memories?retired=1"))
    assert entry_id in listed(own_page)

    own_page.goto(own_viewer.at(f"/memories/{entry_id}"))
    act(own_page, "restore")
    assert own_page.locator("#flash").is_visible()

    assert own_page.locator("#action-retire").count() == 1
    assert store.shown(entry_id)["retired"] is None
    assert name in store.global_markdown(), "its block is back"
    own_page.goto(own_viewer.at("/memories?q=legacy+splitter"))
    assert entry_id in listed(own_page)


def test_confirming_a_stale_learning_on_the_review_takes_its_mark_off(own_page, own_viewer):
    store, entry_id = own_viewer.store, own_viewer.store.ids["changed"]
    own_page.goto(own_viewer.at("/review"))
    row = own_page.locator(f"#stale-queue tr[data-id='{entry_id}']")
    assert "src/csv_reader.py changed since this was learned" in row.inner_text()
    assert store.shown(entry_id)["anchors"][0]["state"] == "changed"

    submit(own_page, row.locator("form[action$='/confirm']"))

    assert path(own_page) == "/review", "the review stays open for the next one"
    assert own_page.locator(f"#stale-queue tr[data-id='{entry_id}']").count() == 0, "its mark is gone"
    [anchor] = store.shown(entry_id)["anchors"]
    assert anchor["state"] == "current"
    own_page.goto(own_viewer.at("/memories?stale=1"))
    assert sorted(listed(own_page)) == sorted(store.ids[key] for key in STALE if key != "changed")
    own_page.goto(own_viewer.at(f"/memories/{entry_id}"))
    assert "changed since" not in text(own_page)
