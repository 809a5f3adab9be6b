"""The Review, Sessions and Overview pages over a stand-in service (Starlette's TestClient, no browser): each
renders the data it is given, escapes hostile stored text, shows no form when read-only, and says when it is empty."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")

from starlette.testclient import TestClient  # noqa: E402

from memory_apps.web.app import create_app  # noqa: E402
from memory_apps.web.options import ViewerOptions  # noqa: E402
from memory_core.entries.browsing import Tallies  # noqa: E402
from memory_core.session.journal import InjectionRecord, InjectionSummary  # noqa: E402
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

    def injection_summaries(self):
        self.asked.append("summaries")
        return [InjectionSummary.of(r) for r in sorted(self._journal, key=lambda r: r.at, reverse=True)]

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
    assert "from shop" in html and "from retro" in html, "each side of a pair says where it came from"
    ids = re.findall(r'<form [^>]*? id="([^"]+)"', html)
    assert len(ids) == len(set(ids)) == len(forms), "one id per form, even for a memory in two queues"
    assert f'id="review-stale-retire-{stale_id}"' in html and f'id="review-pair-retire-{first}"' in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "&lt;script&gt;alert(2)&lt;/script&gt;" in html
    assert_escaped(html)


def test_review_read_only_has_no_forms():
    html = page(client_for(StandInService(review=queues()), read_only=True), "/review")
    assert "<form" not in html and "csrf" not in html and "Stale citations (1)" in html


def test_review_with_nothing_to_do():
    html = page(client_for(StandInService()), "/review")
    assert 'id="empty"' in html and "Nothing to review" in html and "<form" not in html


def test_sessions_list_each_session_and_expand_the_newest():
    service = StandInService(journal=records())
    html = page(client_for(service), "/sessions")

    latest = html[html.index('id="latest"'):html.index('id="all-sessions"')]
    assert 'data-session="s-2"' in latest and 'href="/sessions?session=s-2"' in latest, "the newest, in full"
    assert "Nothing shown: no memory cites this file" in latest, "an older file record that did not say why"
    listing = html[html.index('<table id="sessions"'):]
    assert (listing.index('data-session="s-2"') < listing.index('data-session="s-1"')
            < listing.index('data-session=""')), "newest first"
    assert 'href="/sessions?session=s-1"' in listing and "(no session id)" in listing
    s1 = listing[listing.index('data-session="s-1"'):listing.index('data-session=""')]
    assert "<td class=\"num\">2</td>" in s1 and "<td class=\"num\">3</td>" in s1, "2 injections, 3 memories"
    assert f"diag {'&lt;script&gt;'}" in s1, "the newest diagnostic line, escaped"
    assert f"/memories/{0xB1:016x}" not in listing, "the list reads no memory"
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in html, "a hostile project and diagnostic stay text"
    assert_escaped(html)
    assert "<form" not in html
    assert service.asked == ["summaries", (20, "s-2")], "the journal's summaries, then the newest session only"


def test_sessions_page_by_25():
    at = datetime(2026, 11, 20, tzinfo=timezone.utc)
    journal = [InjectionRecord(at + timedelta(minutes=i), "prompt", "shop", "", (), f"s-{i:02d}") for i in range(30)]
    client = client_for(StandInService(journal=journal))
    first = page(client, "/sessions")
    assert first.count('<tr data-session="s-') == 25 and 'href="/sessions?page=2"' in first
    assert "page 1 of 2 · 30 sessions" in first and 'data-session="s-29"' in first
    second = page(client, "/sessions?page=2")
    assert second.count('<tr data-session="s-') == 5 and 'id="latest"' not in second
    assert 'href="/sessions?page=1"' in second and 'data-session="s-00"' in second
    assert "page 2 of 2" in page(client, "/sessions?page=99999999999999")


def test_a_hostile_session_id_is_a_safe_link():
    journal = [InjectionRecord(datetime(2026, 11, 20, tzinfo=timezone.utc), "prompt", "shop", "", (), "a&b=<c>")]
    html = page(client_for(StandInService(journal=journal)), "/sessions")
    assert 'href="/sessions?session=a%26b%3D%3Cc%3E"' in html and "a&amp;b=&lt;c&gt;" in html


def test_nothing_shown_says_why():
    at = datetime(2026, 11, 20, tzinfo=timezone.utc)
    journal = [InjectionRecord(at, "file", "shop", "*Memory: 0 for a.py | already shown in this session: 2*", (), "s"),
               InjectionRecord(at + timedelta(1), "prompt", "shop", "", (), "s")]
    html = page(client_for(StandInService(journal=journal)), "/sessions?session=s")
    assert "Nothing new: what it calls for was already shown in this session." in html
    assert "already shown in this session: 2" in html
    assert "Nothing shown: no memory was relevant enough." in html, "an older prompt record"


def test_one_session_and_an_unknown_one():
    service = StandInService(journal=records())
    client = client_for(service)
    html = page(client, "/sessions?session=s-1")
    assert 'data-session="s-1"' in html and 'data-session="s-2"' not in html and service.asked[-1][1] == "s-1"
    assert "memory: 2 shown" in html and "0.812" in html and "0.64" in html
    assert "src/export.py changed since this was learned" in html
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
