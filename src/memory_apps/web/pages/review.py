"""GET /review: the queues of `iflow-memory review` (stale citations, near-duplicates, superseded) with their
actions side by side, each a POST form to /memories/{id}/{action}."""

from __future__ import annotations

from starlette.routing import Route

from memory_apps.web.rendering import render
from memory_apps.web.views.review import review_view


def review_page(request):
    """The three review queues (a plain function: Starlette runs it in a thread, off the event loop)."""
    queues = request.app.state.service.review()
    return render(request, "review.html", view=review_view(queues))


routes = [Route("/review", review_page)]
