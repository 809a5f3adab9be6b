"""What a real browser does with hostile stored text and with a read-only viewer (issue 25): markup in a memory is
shown as text and never runs, whatever page shows it; `--read-only` offers no way to change anything."""

from __future__ import annotations

import json

import pytest

from tests.browser._pages import heading, listed, open_launch_url, text
from tests.browser._viewer import Viewer

pytestmark = pytest.mark.slow

HOSTILE = ('<img src=x onerror="document.title=\'pwned\'">', "<script>document.title='pwned'</script> in a name")


def write(store, name: str) -> str:
    entry = {"name": name, "description": f"{name} is what a tool once stored.", "category": "heuristics"}
    return store.json("write", "--no-references-from-git", "--entry-json", json.dumps(entry))["id"]


def test_markup_in_a_memory_is_shown_as_text_and_never_runs(own_page, own_viewer):
    ids = [write(own_viewer.store, name) for name in HOSTILE]
    dialogs: list = []
    own_page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))

    for path in ("/memories?q=pwned", "/memories", *(f"/memories/{i}" for i in ids), "/overview", "/review"):
        own_page.goto(own_viewer.at(path))
        assert own_page.title() != "pwned" and not dialogs, f"stored markup ran on {path}"
        assert own_page.locator("main img, main script").count() == 0, f"stored markup became elements on {path}"
    own_page.goto(own_viewer.at("/memories?q=pwned"))
    assert sorted(listed(own_page)) == sorted(ids)
    for entry_id, name in zip(ids, HOSTILE):
        own_page.goto(own_viewer.at(f"/memories/{entry_id}"))
        assert heading(own_page) == name, "the name as it was stored, character for character"
    assert own_page.problems == []


def test_a_read_only_viewer_offers_no_change(chromium, context, built_store, tmp_path):
    running = Viewer(built_store.copy(tmp_path / "copy"), tmp_path / "ui.log", "--read-only")
    try:
        page = context.new_page()
        open_launch_url(page, running.url)
        assert "read-only" in page.locator("header").inner_text()
        for path in (f"/memories/{built_store.ids['changed']}", "/review"):
            page.goto(running.at(path))
            assert page.locator("form[method=post]").count() == 0, f"{path} shows a form that would change memory"
        assert "changed" in text(page), "the review still shows what needs a human"
    finally:
        running.stop()
