"""The Review, Sessions and Overview pages over a real MemoryService on SQLite: the review's actions come back to
the Review page, the overview counts the store, the Sessions page reads the real journal."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memory_core.session.journal import InjectionRecord, ShownMemory
from tests._helpers import committed_project
from tests.apps.web.conftest import make_viewer

pytest.importorskip("starlette", reason="the viewer needs the ui extra: pip install 'iflow-memory[ui]'")


@pytest.fixture
def git_service(tmp_path, isolated_home):
    """A service over a git project whose src/export.py a learning can cite."""
    from memory_apps.service import MemoryService

    project = committed_project(tmp_path / "shop", {"src/export.py": "def export(rows):\n    return rows\n"})
    with MemoryService(global_store=str(tmp_path / "store"), project_root=str(project), tool="ui",
                       create=True) as opened:
        yield opened


def followed(viewer, response) -> str:
    """The page a 303 leads to."""
    assert response.status_code == 303, response.text
    page = viewer.client.get(response.headers["location"])
    assert page.status_code == 200
    return page.text


def test_confirm_a_stale_memory_from_the_review_page(git_service, tmp_path):
    viewer = make_viewer(git_service)
    cited = viewer.remember("Export rows as given", "Export rows in the order the caller gives them.",
                           references=["src/export.py"])
    assert "Nothing to review" in viewer.client.get("/review").text
    (tmp_path / "shop" / "src" / "export.py").write_text("def export(rows):\n    return sorted(rows)\n")

    html = viewer.client.get("/review").text
    assert f'id="review-stale-confirm-{cited}"' in html and "src/export.py changed since this was learned" in html
    response = viewer.post(f"/memories/{cited}/confirm", {"next": "/review"})
    assert response.headers["location"].startswith("/review?flash=")
    after = followed(viewer, response)
    assert 'id="flash"' in after and "Nothing to review" in after


def test_restore_a_superseded_memory_from_the_review_page(service):
    viewer = make_viewer(service)
    old = viewer.remember("Split rows", "Split CSV rows on commas.")
    new = service.remember("Use the csv module", "Let the csv module split CSV rows.", supersedes=old).entry_id

    html = viewer.client.get("/review").text
    assert f'action="/memories/{old}/restore"' in html and f'href="/memories/{new}"' in html
    after = followed(viewer, viewer.post(f"/memories/{old}/restore", {"next": "/review"}))
    assert "Superseded (0)" in after and service.get(old) is not None


def test_overview_counts_the_store(service):
    viewer = make_viewer(service)
    viewer.remember("Quote CSV fields", category="patterns")
    viewer.remember("Never parse HTML with a regex", category="anti-patterns")

    html = viewer.client.get("/overview").text
    assert "<strong>2</strong> memories" in html and "<strong>0</strong> recalled at least once" in html
    assert '<a href="/memories?category=anti-patterns">anti-patterns</a>' in html
    today = datetime.now(timezone.utc).date().isoformat()
    assert f"<title>{today}: 2 added</title>" in html


def test_sessions_read_the_journal_the_hooks_write(service):
    viewer = make_viewer(service)
    stored = viewer.remember("Quote CSV fields")
    record = InjectionRecord(datetime.now(timezone.utc), "prompt", "bank-app", "memory: 1 shown",
                             (ShownMemory(stored, "Quote CSV fields", "patterns", 0.7, 0.6, {"keywords": 0.9}),),
                             "session-1", "how do I quote <b>fields</b>")
    service.container.injection_journal().append(record)

    assert [r.session_id for r in service.injections()] == ["session-1"]
    html = viewer.client.get("/sessions").text
    assert 'data-session="session-1"' in html and f'href="/memories/{stored}"' in html
    assert "how do I quote &lt;b&gt;fields&lt;/b&gt;" in html and "0.90" in html
    assert 'data-session="session-1"' in viewer.client.get("/sessions?session=session-1").text
    assert "No injections recorded for this session." in viewer.client.get("/sessions?session=other").text


def test_a_big_store_review_in_progress_holds_no_page_and_every_action_asks_for_a_new_one(git_service, monkeypatch):
    import threading

    from memory_apps.service import MemoryService
    from memory_apps.web.pages import review

    monkeypatch.setattr(review, "SYNC_LIMIT", 0)  # any store is "big": the review runs in the background
    viewer = make_viewer(git_service)
    kept = viewer.remember("Export rows as given", "Export rows in the order the caller gives them.")
    started, finish, reviewers = threading.Event(), threading.Event(), []
    real_review = MemoryService.review

    def slow_review(service):
        reviewers.append(service)
        started.set()
        assert finish.wait(60)
        return real_review(service)

    monkeypatch.setattr(MemoryService, "review", slow_review)
    assert 'id="pending"' in viewer.client.get("/review").text
    assert started.wait(60)
    # the review is still running: the other pages answer all the same, from the pages' own service
    assert viewer.client.get("/memories").status_code == 200
    assert viewer.client.get(f"/memories/{kept}").status_code == 200
    assert reviewers and all(r is not git_service for r in reviewers), "the review runs on a service of its own"
    finish.set()
    keeper = viewer.client.app.state.review_keeper
    first = keeper.get(60).kept
    assert first is not None

    followed(viewer, viewer.post(f"/memories/{kept}/retire", {"reason": "no longer true"}))
    assert keeper.get(60).kept.generation > first.generation, "the retire asked for a newer review"
