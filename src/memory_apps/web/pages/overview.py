"""GET /overview: counts by category, project and source, memories added and recalled per day, the most recalled
and the never-shown ones."""

from __future__ import annotations

from starlette.routing import Route

from memory_apps.web.rendering import render
from memory_apps.web.views.overview import overview_view, utc_today

TOP = 10


def overview_page(request):
    """The store's tallies and the journal's recalls per day (plain function: run in a thread)."""
    service = request.app.state.service  # summaries, not records: the chart needs no memory, only how many
    view = overview_view(service.tallies(TOP), service.injection_summaries(), utc_today())
    return render(request, "overview.html", view=view)


routes = [Route("/overview", overview_page)]
