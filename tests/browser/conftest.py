"""The browser tests' fixtures: one headless chromium per test process (Playwright driving Debian's `chromium`), the
store they look at (built once per process, copied for a test that changes it), the viewer as a process, and a page
signed in with the viewer's token.

Where Playwright is missing or no browser can start, the tests skip with the reason; with
IFLOW_MEMORY_REQUIRE_BROWSER=1 (CI: .ci/run) they fail instead."""

from __future__ import annotations

import os
import shutil

import pytest

from tests.browser._pages import VIEWPORT, open_launch_url
from tests.browser._store import ViewerStore, build
from tests.browser._viewer import Viewer

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu"]  # root in a container has no sandbox; headless needs no GPU
WAIT_MS = 60_000
"""How long a page action or load may take before the test calls the viewer hung: far past a loaded machine."""


class BrowserUnavailable(RuntimeError):
    """No browser can be driven here (the reason says why)."""


def _chromium_path() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        raise BrowserUnavailable("no chromium on PATH (Debian: apt-get install chromium; .ci/run installs it)")
    return path


def _launch(playwright):
    try:
        return playwright.chromium.launch(executable_path=_chromium_path(), args=CHROMIUM_ARGS, headless=True)
    except BrowserUnavailable:
        raise
    except Exception as exc:  # noqa: BLE001 - Playwright's launch errors share no narrower type
        raise BrowserUnavailable(f"chromium did not start under Playwright: {str(exc).splitlines()[0]}") from exc


@pytest.fixture(scope="session")
def chromium():
    """One headless chromium for this test process, closed at its end."""
    try:
        try:
            from playwright.sync_api import sync_playwright
        except ImportError as exc:
            raise BrowserUnavailable("Playwright is not installed (pip install 'iflow-memory[dev]')") from exc
        playwright = sync_playwright().start()
        try:
            browser = _launch(playwright)
        except BrowserUnavailable:
            playwright.stop()
            raise
    except BrowserUnavailable as exc:
        if os.environ.get("IFLOW_MEMORY_REQUIRE_BROWSER") == "1":
            pytest.fail(str(exc))
        pytest.skip(str(exc))
    yield browser
    browser.close()
    playwright.stop()


@pytest.fixture(scope="session")
def built_store(tmp_path_factory) -> ViewerStore:
    """The store, built once per test process; a template: tests look at copies of it."""
    return build(tmp_path_factory.mktemp("viewer-template"))


@pytest.fixture(scope="module")
def viewer(built_store, tmp_path_factory):
    """A viewer over a copy of the store shared by a module's tests that change nothing."""
    root = tmp_path_factory.mktemp("viewer")
    running = Viewer(built_store.copy(root / "copy"), root / "ui.log")
    yield running
    running.stop()


@pytest.fixture
def own_viewer(built_store, tmp_path):
    """A viewer over this test's own copy of the store (for a test that changes memories)."""
    running = Viewer(built_store.copy(tmp_path / "copy"), tmp_path / "ui.log")
    yield running
    running.stop()


class Problems(list):
    """What went wrong while a page was open, as the browser saw it: console errors (a Content-Security-Policy
    refusal is one), script errors, and subresources answered with an error (by URL)."""


def _watched(page) -> Problems:
    problems = Problems()

    def console(message) -> None:
        # A failed load is reported below with its URL; the console's copy of it names none.
        if message.type == "error" and not message.text.startswith("Failed to load resource"):
            problems.append(message.text)

    def response(answer) -> None:
        if answer.status >= 400 and answer.request.resource_type != "document":
            problems.append(f"{answer.status} for {answer.url}")

    page.on("console", console)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("response", response)
    return problems


@pytest.fixture
def context(chromium):
    """A fresh browser profile (no cookies) with the screenshots' viewport."""
    made = chromium.new_context(viewport=VIEWPORT)
    made.set_default_timeout(WAIT_MS)
    made.set_default_navigation_timeout(WAIT_MS)
    yield made
    made.close()


def signed_in(context, running: Viewer):
    """A page that opened the printed URL (token → cookie → the URL without the token); its problems."""
    page = context.new_page()
    problems = _watched(page)
    response = open_launch_url(page, running.url)
    assert response is not None and response.ok, f"the printed URL answered {response and response.status}"
    assert "token" not in page.url, "the token leaves the address bar once the cookie carries it"
    page.problems = problems
    return page


@pytest.fixture
def page(context, viewer):
    """A signed-in page on the module's shared viewer."""
    return signed_in(context, viewer)


@pytest.fixture
def own_page(context, own_viewer):
    """A signed-in page on this test's own viewer."""
    return signed_in(context, own_viewer)
