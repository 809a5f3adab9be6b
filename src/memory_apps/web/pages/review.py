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
RELOAD = "3; url=/review"
_KEEPER_LOCK = threading.Lock()


def review_page(request):
    """The three review queues (a plain function: Starlette runs it in a thread, off the event loop)."""
    service = request.app.state.service
    total = service.count()  # before the keeper starts: a review in progress holds the service until it is done
    if total <= SYNC_LIMIT:
        return render(request, "review.html", view=review_view(service.review()))
    keeper = keeper_of(request.app)
    if "flash" in request.query_params:  # back from an action (it redirects with a flash): the queues changed
        keeper.invalidate()
    answer = keeper.get(WAIT_S)
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
    """The app's review keeper (one per viewer; made on first use)."""
    with _KEEPER_LOCK:
        keeper = getattr(app.state, "review_keeper", None)
        if keeper is None:
            keeper = app.state.review_keeper = ReviewKeeper(app.state.service.review)
        return keeper


routes = [Route("/review", review_page)]
