"""`create_app`: the viewer's Starlette app over one `MemoryService`, behind the guard (ADR 27)."""

from __future__ import annotations

import importlib
import os
from collections import OrderedDict

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from memory_apps.web.options import ViewerOptions
from memory_apps.web.security import Guard
from memory_apps.web.store_label import store_label
from memory_core.errors import StorageError

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
PAGES = ("memories", "memory", "actions", "review", "sessions", "overview")
"""The page modules under `memory_apps.web.pages`; one not written yet is left out (the lanes land one by one)."""


def page_routes() -> list:
    """Every page module's `routes`, in the order of PAGES (a page's module that does not exist is skipped)."""
    routes: list = []
    for name in PAGES:
        module_name = f"memory_apps.web.pages.{name}"
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:  # a missing dependency inside a page is a bug, not an absent page
                raise
            continue
        routes.extend(module.routes)
    return routes


async def _home(request):
    return RedirectResponse("/memories", status_code=303)


async def _no_icon(request):
    return Response(status_code=204)  # browsers ask for one; answering keeps their console free of 404s


async def _storage_failed(request, exc: StorageError):
    # A database error is the store's (locked, gone, corrupt), said in words; never a traceback page.
    return PlainTextResponse(f"database error: {exc}\n", status_code=503)


def create_app(service, options: ViewerOptions) -> Starlette:
    """The viewer over `service` (a `MemoryService` opened with tool="ui"); pages read `request.app.state.service`
    and `request.app.state.options`."""
    routes = [Route("/", _home), Route("/favicon.ico", _no_icon), *page_routes(), Mount("/static", app=StaticFiles(directory=STATIC), name="static")]
    app = Starlette(routes=routes, middleware=[Middleware(Guard, options=options)],
                    exception_handlers={StorageError: _storage_failed})
    app.state.service = service
    app.state.options = options
    app.state.store_label = store_label(service)  # named in every page's footer
    app.state.flashes = OrderedDict()  # messages kept for the page a POST redirects to (rendering.keep_flash)
    return app
