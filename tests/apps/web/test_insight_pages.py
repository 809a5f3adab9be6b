"""The Review, Sessions and Overview pages over a stand-in service (Starlette's TestClient, no browser): each
renders the data it is given, escapes hostile stored text, shows no form when read-only, and says when it is empty."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")

from starlette.testclient import TestClient  # noqa: E402

from memory_apps.web.app import create_app  # noqa: E402
from memory_apps.web.options import ViewerOptions  # noqa: E402
from memory_core.entries.browsing import Tallies  # noqa: E402
from memory_core.usecases.lifecycle.review import ReviewQueues  # noqa: E402
from tests.apps.web._insight_data import queues, records, tallies  # noqa: E402

PORT = 8765


class StandInService:
    """What the three pages ask of `MemoryService`, answered from plain data."""

    def __init__(self, review=None, journal=None, counts=None) -> None:
        self._review, self._journal, self._counts = review or ReviewQueues(), journal or [], counts or Tallies()
        self.asked: list = []

    def review(self):
        return self._review

    def injections(self, limit=200, session_id=None):
        self.asked.append((limit, session_id))
        chosen = [r for r in self._journal if session_id is None or r.session_id == session_id]
        return sorted(chosen, key=lambda r: r.at, reverse=True)[:limit]

    def tallies(self, top=10):
        return self._counts

    def count(self):
        return self._counts.total


def client_for(service, read_only=False) -> TestClient:
    """A client holding the launch cookie, as a browser that opened the printed URL does."""
    options = ViewerOptions(port=PORT, read_only=read_only)
    client = TestClient(create_app(service, options), base_url=f"http://127.0.0.1:{PORT}")
    assert client.get(f"/?token={options.token}", follow_redirects=False).status_code == 200
    client.options_used = options
    return client


def page(client, path) -> str:
    response = client.get(path)
    assert response.status_code == 200, response.text
    return response.text


def assert_escaped(html: str) -> None:
    assert "<img src=x" not in html and "<script>alert" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html or "&lt;script&gt;alert(2)&lt;/script&gt;" in html


def test_review_shows_each_queue_with_its_actions():
    client = client_for(StandInService(review=queues()))
    html = page(client, "/review")

    assert "<h1>Review</h1>" in html and "Stale citations (1)" in html and "Near-duplicates (1)" in html
    stale_id, first, second, old = (f"{n:016x}" for n in (0xA1, 0xB1, 0xB2, 0xC1))
    forms = re.findall(r'<form method="post" action="(/memories/[0-9a-f]{16}/\w+)"', html)
    assert forms == [f"/memories/{stale_id}/confirm", f"/memories/{stale_id}/retire", f"/memories/{first}/retire",
                     f"/memories/{second}/retire", f"/memories/{old}/restore"]
    csrf = client.options_used.csrf_token
    assert html.count(f'name="csrf" value="{csrf}"') == len(forms)
    assert "cites src/gone.py, which no longer exists" in html and "0.93" in html
    assert f'href="/memories/{0xD1:016x}"' in html, "the superseding memory is a link"
    assert f'value="near-duplicate of {second}"' in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "&lt;script&gt;alert(2)&lt;/script&gt;" in html
    assert_escaped(html)


def test_review_read_only_has_no_forms():
    html = page(client_for(StandInService(review=queues()), read_only=True), "/review")
    assert "<form" not in html and "csrf" not in html and "Stale citations (1)" in html


def test_review_with_nothing_to_do():
    html = page(client_for(StandInService()), "/review")
    assert 'id="empty"' in html and "Nothing to review" in html and "<form" not in html


def test_sessions_show_injections_signals_and_links():
    service = StandInService(journal=records())
    html = page(client_for(service), "/sessions")

    assert html.index('data-session="s-2"') < html.index('data-session="s-1"') < html.index('data-session=""')
    assert 'href="/sessions?session=s-1"' in html and "without a session" in html
    assert f'href="/memories/{0xB1:016x}"' in html and "0.812" in html and "0.64" in html
    assert "src/export.py changed since this was learned" in html and "memory: 2 shown" in html
    assert "Nothing shown: no memory was relevant enough." in html, "the file hook that showed nothing"
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in html, "a hostile project and diagnostic stay text"
    assert_escaped(html)
    assert "<form" not in html


def test_one_session_and_an_unknown_one():
    service = StandInService(journal=records())
    client = client_for(service)
    html = page(client, "/sessions?session=s-1")
    assert 'data-session="s-1"' in html and 'data-session="s-2"' not in html and service.asked[-1][1] == "s-1"
    assert 'href="/sessions">every session' in html
    assert "No injections recorded for this session." in page(client, "/sessions?session=%3Cb%3Enope")
    assert "&lt;b&gt;nope" in page(client, "/sessions?session=%3Cb%3Enope")


def test_an_empty_journal_says_hooks_record_from_now_on():
    html = page(client_for(StandInService()), "/sessions")
    assert 'id="empty"' in html and "From now on" in html


def test_overview_counts_chart_and_lists():
    html = page(client_for(StandInService(journal=records(), counts=tallies())), "/overview")

    assert "<h1>Overview</h1>" in html and "<strong>12</strong> memories" in html
    assert '<a href="/memories?category=patterns">patterns</a>' in html
    assert '<svg id="per-day-chart" role="img"' in html and "<title>2026-11-20: 8 added</title>" in html
    assert "Recalls are counted from the injection journal, kept since 2026-11-19." in html
    assert f'href="/memories/{0xE1:016x}">Most shown</a>' in html and "<td>(no project)</td>" in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "&lt;script&gt;alert(2)&lt;/script&gt;" in html
    assert_escaped(html)
    assert "style=" not in html and "<script" not in html, "nothing the CSP would block"


def test_an_empty_store_overview():
    html = page(client_for(StandInService()), "/overview")
    assert 'id="empty"' in html and "No memories yet" in html


@pytest.mark.parametrize("path", ["/review", "/sessions", "/overview"])
def test_pages_need_the_launch_cookie(path):
    options = ViewerOptions(port=PORT)
    bare = TestClient(create_app(StandInService(review=queues()), options), base_url=f"http://127.0.0.1:{PORT}")
    assert bare.get(path).status_code == 403


class SlowReviewService(StandInService):
    """A big store: its review waits for the test to let it finish."""

    def __init__(self, **data) -> None:
        super().__init__(**data)
        self.finish = __import__("threading").Event()

    def count(self):
        return 10_000

    def review(self):
        assert self.finish.wait(30)
        return super().review()


def test_a_big_store_review_is_computed_in_the_background_and_kept(monkeypatch):
    from memory_apps.web.pages import review

    monkeypatch.setattr(review, "WAIT_S", 0.0)
    monkeypatch.setattr(review, "_own_service_review", lambda service: service.review)  # a stand-in has no store
    service = SlowReviewService(review=queues())
    client = client_for(service)

    pending = client.get("/review")
    assert pending.status_code == 200 and 'id="pending"' in pending.text and "10000 memories" in pending.text
    assert pending.headers["refresh"] == "3; url=/review" and "<form" not in pending.text
    service.finish.set()
    keeper = client.app.state.review_keeper
    assert keeper.get(30).kept is not None
    ready = client.get("/review")
    assert 'id="computed"' in ready.text and "Stale citations (1)" in ready.text and "refresh" not in ready.headers
