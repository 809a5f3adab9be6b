"""The Sessions page in a real browser (issue 25): what the last session's hooks gave the agent, and why. The
session was started in the project by the real hooks (session start, then one prompt) when the store was built."""

from __future__ import annotations

import json

import pytest

from tests._helpers import run_app
from tests.browser._pages import diagnostic, heading, injected_names, text
from tests.browser._store import PROJECT, PROMPT, SESSION_ID

pytestmark = pytest.mark.slow


def test_the_last_session_shows_what_its_start_injected_and_why(page, viewer):
    block = viewer.store.injected["session-start"]
    page.goto(viewer.at("/sessions"))

    assert heading(page) == "Sessions"
    shown = text(page)
    assert SESSION_ID in shown and PROJECT in shown
    assert diagnostic(block) in shown, "the diagnostic line the agent saw"
    names = injected_names(block)
    assert len(names) == 20, "the default limit from the real bank"
    missing = [name for name in names if name not in shown]
    assert not missing, f"every injected memory is listed; missing: {missing}"
    row = page.locator(f"#sessions tr[data-session='{SESSION_ID}']")
    assert row.locator("td.num").first.inner_text() == "2", "the list: its start and its prompt"
    with page.expect_navigation():
        row.locator("a").click()
    assert page.url.endswith(f"/sessions?session={SESSION_ID}") and SESSION_ID in text(page)


def test_the_prompt_hook_shows_its_prompt_and_its_learnings(page, viewer):
    block = viewer.store.injected["user-prompt-submit"]
    page.goto(viewer.at(f"/sessions?session={SESSION_ID}"))

    shown = text(page)
    assert PROMPT in shown, "what the user asked (short and redacted) is the trigger"
    assert all(name in shown for name in injected_names(block))


def test_a_shown_memory_links_to_its_page(page, viewer):
    page.goto(viewer.at(f"/sessions?session={SESSION_ID}"))
    name = injected_names(viewer.store.injected["session-start"])[0]
    with page.expect_navigation():
        page.locator("main a", has_text=name).first.click()
    assert "/memories/" in page.url and heading(page) == name


def test_a_session_started_while_the_viewer_runs_appears_on_a_reload(own_page, own_viewer):
    store = own_viewer.store
    own_page.goto(own_viewer.at("/sessions"))
    assert "browser-session-2" not in text(own_page)

    event = {"session_id": "browser-session-2", "transcript_path": "/dev/null", "cwd": str(store.project),
             "hook_event_name": "SessionStart", "source": "startup"}
    started = run_app("memory_apps.cli", ["hook", "session-start", "--global-store", store.store], store.home,
                      stdin=json.dumps(event))
    assert started.returncode == 0 and "additionalContext" in started.stdout, started.stderr
    own_page.reload()

    first = own_page.locator("main h2").first.inner_text()
    assert "browser-session-2" in first, "the newest session comes first"
