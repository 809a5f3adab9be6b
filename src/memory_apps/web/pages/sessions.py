"""GET /sessions (?session=ID): what each hook injected, grouped by session, and why."""

from __future__ import annotations

from starlette.routing import Route

from memory_apps.web.rendering import render
from memory_apps.web.views.sessions import sessions_view
from memory_core.safety.inert import one_line

RECENT = 200
"""Injections read for the page (the journal keeps about 1000)."""
MAX_SESSION_ID = 200


def sessions_page(request):
    """The newest injections grouped by session, or one session's (plain function: run in a thread)."""
    session_id = one_line(request.query_params.get("session", "")).strip()[:MAX_SESSION_ID] or None
    records = request.app.state.service.injections(RECENT, session_id)
    return render(request, "sessions.html", view=sessions_view(records, session_id))


routes = [Route("/sessions", sessions_page)]
