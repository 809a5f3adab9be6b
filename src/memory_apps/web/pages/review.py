"""GET /review: the queues of `iflow-memory review` (stale citations, near-duplicates, superseded) with their
actions side by side, each a POST form to /memories/{id}/{action}."""

from __future__ import annotations

import threading

from starlette.routing import Route

from memory_apps.web.rendering import render
from memory_apps.web.review_keeper import ReviewKeeper
from memory_apps.web.views.entry_refs import moment
from memory_apps.web.views.review import review_view

SYNC_LIMIT = 2000
"""Up to this many memories the review runs on every request (well under a second); above, in the background."""
WAIT_S = 0.1
"""How long a request waits for a review in progress before it answers with the last one (or "computing")."""
STALE_WAIT_S = 2.0
"""How long the stale filter waits for a big store's first review before it says to reload (the page refreshes
itself); the kept one afterwards answers at once."""
RELOAD = "3; url=/review"
_KEEPER_LOCK = threading.Lock()


def review_page(request):
    """The three review queues (a plain function: Starlette runs it in a thread, off the event loop)."""
    service = request.app.state.service
    total = service.count()
    if total <= SYNC_LIMIT:
        return render(request, "review.html", view=review_view(service.review()))
    answer = keeper_of(request.app).get(WAIT_S)
    if answer.kept is None:
        response = render(request, "review.html", view=None, pending=True, total=total)
    else:
        kept = answer.kept
        response = render(request, "review.html", view=review_view(kept.queues), computed=moment(kept.computed_at),
                          took_s=round(kept.took_s, 1), updating=answer.updating,
                          up_to_date=answer.current)
    if answer.kept is None or not answer.current:  # the page reloads itself (no script) until it is up to date
        response.headers["Refresh"] = RELOAD
    return response


def keeper_of(app) -> ReviewKeeper:
    """The app's review keeper (one per viewer; made on first use). It reviews through a service of its own (a
    second connection), so the seconds a big store's review takes never hold the pages' service."""
    with _KEEPER_LOCK:
        keeper = getattr(app.state, "review_keeper", None)
        if keeper is None:
            keeper = app.state.review_keeper = ReviewKeeper(_own_service_review(app.state.service))
        return keeper


def _own_service_review(service):
    opened: list = []

    def review():
        if not opened:
            from memory_apps.service import MemoryService

            opened.append(MemoryService(service.global_store, service.project_root, settings=service.settings,
                                        tool=service.tool))
        return opened[0].review()
    return review


def stale_ids(app, wait_s: float = STALE_WAIT_S) -> tuple[str, ...]:
    """The ids of the memories whose citations went stale (the Memories page's filter): on a big store from the
    kept review, waiting up to `wait_s` for a first one; ReviewPending when there is none yet."""
    service = app.state.service
    if service.count() <= SYNC_LIMIT:
        return tuple(s.entry.id for s in service.review().stale)
    answer = keeper_of(app).get(wait_s)
    if answer.kept is None:
        raise ReviewPending("the review of a store this big is still being computed; reload in a few seconds")
    return tuple(s.entry.id for s in answer.kept.queues.stale)


def start_review(app) -> None:
    """At launch, on a big store: start the first review now, so the Review page and the stale filter have one by
    the time someone asks (seconds at 10k memories)."""
    if app.state.service.count() > SYNC_LIMIT:
        keeper_of(app).get(0.0)


def review_changed(app) -> None:
    """A change was made (any action): the kept review must be computed again before it is shown as current."""
    keeper = getattr(app.state, "review_keeper", None)
    if keeper is not None:
        keeper.invalidate()


class ReviewPending(Exception):
    """No review has been computed yet for the stale filter to read."""


routes = [Route("/review", review_page)]
