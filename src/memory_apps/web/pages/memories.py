"""GET /memories: search, filters, sort and paging over the memories (live, stale or retired)."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.routing import Route

from memory_apps.web.pages.memory import known_projects
from memory_apps.web.pages.review import ReviewPending, stale_ids
from memory_apps.web.rendering import render
from memory_apps.web.views.listing import ListingRequest, listing, page_of, parse_listing, row
from memory_core.entries.browsing import InvalidBrowse
from memory_core.entries.records import CATEGORIES, SOURCES
from memory_core.errors import InvalidEntry

SEARCH_LIMIT = 100


async def memories_page(request):
    """The Memories page for the query string's search, filters, sort and page."""
    # Pages are async and call the service directly: one thread uses the store's connection, requests take
    # turns (a local viewer has one user), and no lock outlives a call.
    try:
        wanted = parse_listing(request.query_params)
    except InvalidBrowse as exc:
        return _page(request, ListingRequest(), None, flash=str(exc), flash_error=True, status_code=400)
    service = request.app.state.service
    try:
        # a big store's first review may take seconds: waited for off the event loop
        stale = await run_in_threadpool(stale_ids, request.app) if wanted.stale else None
        if wanted.q:
            view = _searched(service, wanted, stale)
        elif wanted.retired:
            view = _retired(service, wanted, stale)
        else:
            view = _browsed(service, wanted, stale)
    except (InvalidEntry, InvalidBrowse) as exc:
        message = f"{exc.field}: {exc.message}" if isinstance(exc, InvalidEntry) else str(exc)
        return _page(request, wanted, None, flash=message, flash_error=True, status_code=400)
    except ReviewPending as exc:
        response = _page(request, wanted, None, flash=str(exc), flash_error=True, status_code=503)
        response.headers["Refresh"] = "3"
        return response
    return _page(request, wanted, view)


def _page(request, wanted: ListingRequest, view, flash=None, flash_error=False, status_code=200):
    return render(request, "memories.html", status_code=status_code, flash=flash, flash_error=flash_error,
                  wanted=wanted, view=view, categories=CATEGORIES, sources=SOURCES)


def _searched(service, wanted: ListingRequest, stale):
    # The search ranks; the other filters then narrow its good matches (category goes into the search itself).
    found = service.search(wanted.q, SEARCH_LIMIT, wanted.category, include_weak=False)
    relevance = {r.entry.id: r.relevance for r in found.selected}
    query = wanted.browse_query(stale)
    page = page_of([r.entry for r in found.selected], query, keep_order=not wanted.sort)
    names, states = known_projects(service), found.anchors  # the search checked its results' citations
    rows = [row(e, relevance.get(e.id), names=names, states=states.get(e.id, ())) for e in page.entries]
    return listing(wanted, page, rows, "search")


def _retired(service, wanted: ListingRequest, stale):
    retired = {r.entry.id: r for r in service.retired_entries()}  # newest first
    query = wanted.browse_query(stale)
    page = page_of([r.entry for r in retired.values()], query, keep_order=not wanted.sort)
    names = known_projects(service)  # a retired memory's citations are not checked (its page does not either)
    rows = [row(e, retired=_retired_note(retired[e.id]), names=names) for e in page.entries]
    return listing(wanted, page, rows, "retired")


def _retired_note(retired) -> str:
    when = retired.retired_at.strftime("%Y-%m-%d")
    if retired.superseded_by:
        return f"{when}, superseded by {retired.superseded_by}"
    return f"{when}: {retired.reason}" if retired.reason else when


def _browsed(service, wanted: ListingRequest, stale):
    query = wanted.browse_query(stale)
    page = service.container.store().browse(query)  # filters, order and paging in SQL (EntryBrowser)
    names, states = known_projects(service), _states(service, page.entries)
    return listing(wanted, page, [row(e, names=names, states=states.get(e.id, ())) for e in page.entries], "browse")


def _states(service, entries) -> dict:
    """The citation states of this page's entries only (at most a page: a whole store's check would be slow)."""
    cited = [e for e in entries if e.anchors]
    return service.citations(cited) if cited else {}


routes = [Route("/memories", memories_page)]
