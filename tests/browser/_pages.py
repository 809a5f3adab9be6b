"""What a user sees on the viewer's pages, read through the stable hooks of ADR 27's page shape: `<table
id="memories">` rows `<tr data-id>`, forms `<form id="action-ACTION">`, `<p id="flash">`, one `<h1>` a page."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from tests._helpers import entry_headers
from tests.browser._store import ViewerStore

VIEWPORT = {"width": 1280, "height": 900}
"""The browser window of every test (and of the screenshots)."""
KIND = re.compile(r"^(?:Anti-Pattern|Pattern|Heuristic): ")


def listed(page) -> list[str]:
    """The ids of the memories the listing shows, top to bottom."""
    return page.locator("#memories tbody tr[data-id]").evaluate_all("rows => rows.map(r => r.dataset.id)")


def path(page) -> str:
    """The address bar's path (without the query a flash message rides on)."""
    return urlsplit(page.url).path


def heading(page) -> str:
    """The page's `<h1>` as the user reads it."""
    return page.locator("h1").first.inner_text().strip()


def text(page) -> str:
    """Everything the page shows in its main part."""
    return page.locator("main").inner_text()


def submit(page, form) -> None:
    """Send a form by its own submit control and wait for the page it leads to."""
    with page.expect_navigation():
        form.locator("[type=submit]").first.click()


def act(page, action: str) -> str:
    """Press the memory page's button for `action` (its form `#action-ACTION`); the flash message that follows."""
    submit(page, page.locator(f"#action-{action}"))
    return page.locator("#flash").inner_text().strip()


def ids_by_name(store: ViewerStore, *args: str) -> dict[str, str]:
    """`list --json [ARGS]`: the ids of the live memories by name, as the database holds them."""
    return {entry["name"]: entry["id"] for entry in store.json("list", *args)}


def injected_names(block: str) -> list[str]:
    """The names of the memories a hook's block showed the agent."""
    return [KIND.sub("", line[len("### "):]).strip() for line in entry_headers(block)]


def diagnostic(block: str) -> str:
    """The block's diagnostic line without its markdown emphasis (`Memory: 20 entries from ...`)."""
    line = next(ln for ln in block.splitlines() if ln.startswith("*Memory:"))
    return line.strip("*")


def open_launch_url(page, url: str):
    """Open the printed URL as a user does: its landing page sets the cookie and refreshes to the address without
    the token; the response of the page it lands on."""
    with page.expect_navigation(url=lambda address: "token=" not in address) as landed:
        page.goto(url)
    return landed.value
