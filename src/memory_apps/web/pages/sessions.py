"""GET /sessions: the sessions, newest first and paged, the newest one's injections in full; ?session=ID: that
session's injections in full, and why each memory was shown."""

from __future__ import annotations

from starlette.routing import Route

from memory_apps.web.rendering import render
from memory_apps.web.views.session_list import session_list, session_rows
from memory_apps.web.views.sessions import EMPTY_TEXT, SIGNALS, sessions_view
from memory_core.safety.inert import one_line

RECENT = 200
"""Injections read for one session's page (the journal keeps about 1000)."""
LATEST = 20
"""Injections of the newest session shown in full on the list's first page."""
MAX_SESSION_ID = 200
MAX_PAGE = 10_000


def sessions_page(request):
    """The session list or one session (plain function: run in a thread)."""
    service = request.app.state.service
    session_id = one_line(request.query_params.get("session", "")).strip()[:MAX_SESSION_ID] or None
    if session_id is not None:
        records = service.injections(RECENT, session_id)
        return render(request, "sessions.html", view=sessions_view(records, session_id))
    rows = session_rows(service.injection_summaries())
    page = _page(request.query_params.get("page", ""))
    latest = None
    if page == 1 and rows:
        newest = rows[0]
        records = service.injections(LATEST, newest.session_id)
        latest = next((g for g in sessions_view(records).sessions
                       if g.session_id == newest.session_id and (newest.session_id or g.project == newest.project)),
                      None)
    return render(request, "sessions.html", listing=session_list(rows, page, latest),
                  signal_names=SIGNALS, empty_text=EMPTY_TEXT)


def _page(raw: str) -> int:
    return min(max(int(raw[:6]), 1), MAX_PAGE) if raw.isdigit() else 1


routes = [Route("/sessions", sessions_page)]
