"""GET /memories: the listing (a first stub; search, filters, sort and paging come next)."""

from __future__ import annotations

from starlette.routing import Route

from memory_apps.web.rendering import render


async def memories_page(request):
    """The memories, newest first."""
    entries = request.app.state.service.entries()
    return render(request, "memories.html", entries=entries)


routes = [Route("/memories", memories_page)]
