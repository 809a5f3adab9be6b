"""GET /memories/{id}: one memory in full, its references' state, history and retirement, with its actions."""

from __future__ import annotations

from typing import Optional
from urllib.parse import urlencode

from starlette.responses import RedirectResponse
from starlette.routing import Route

from memory_apps.web.rendering import render
from memory_apps.web.views.memory import memory_view, states_of
from memory_apps.web.views.scopes import project_names
from memory_core.entries.records import CATEGORIES
from memory_core.errors import InvalidEntry
from memory_core.policies.bank_trust import BANK_PREFIX
from memory_core.safety.inert import one_line
from memory_core.usecases.lifecycle.locate import Located
from memory_core.usecases.reconcile_audit import from_users_bank

CONFIDENCES = ("high", "medium", "low")


def locate_or_answer(request, text: str):
    """What the id in the path names (`Located`), or the page that says it names nothing (a malformed id: 400,
    an unknown one: 404)."""
    try:
        located = request.app.state.service.locate(text)
    except InvalidEntry as exc:
        return missing(request, text, one_line(exc.message), 400)
    if located is None:
        return missing(request, text, f"no memory with id {one_line(text)}", 404)
    return located


async def memory_page(request):
    """The page of the memory an id (or unique prefix, or an id an edit replaced) names."""
    text = request.path_params["entry_id"]
    located = locate_or_answer(request, text)
    if not isinstance(located, Located):
        return located
    if located.entry_id != text:  # a prefix or an edited-away id: the page of the whole, current id
        query = urlencode({k: v for k, v in request.query_params.items() if k == "flash"})
        return RedirectResponse(f"/memories/{located.entry_id}" + (f"?{query}" if query else ""), status_code=303)
    return show(request, located)


def known_projects(service) -> dict[str, str]:
    """{project identity: name} of every project whose knowledge bank was imported (a kept entry names its own)."""
    return project_names(service.container.store().metadata_items(BANK_PREFIX))


def missing(request, text: str, message: str, status_code: int):
    """The page for an id that names no memory (or is malformed, or ambiguous)."""
    return render(request, "memory_missing.html", status_code=status_code, flash=message, flash_error=True,
                  asked=text)


def show(request, located, flash: Optional[str] = None, flash_error: bool = False, status_code: int = 200,
         form: Optional[dict] = None, confirm_delete: bool = False):
    """Render a located memory; an action's error comes back here with its message and the form as submitted."""
    service = request.app.state.service
    entry = located.entry if located.entry is not None else located.retired.entry
    states = states_of(service.citations([entry]), entry.id) if located.entry is not None and entry.anchors else []
    view = memory_view(entry, located.retired, states, service.history(entry.id), known_projects(service))
    if form is not None:
        view.form = {**view.form, **form}
    return render(request, "memory.html", status_code=status_code, flash=flash, flash_error=flash_error, view=view,
                  categories=CATEGORIES, confidences=CONFIDENCES, confirm_delete=confirm_delete,
                  actions=_actions(located), hand_written=located.entry is not None and from_users_bank(entry))


def _actions(located) -> tuple[str, ...]:
    """The actions that apply: a live memory's, or restore and delete for a retired one (promote only when kept to
    a repo)."""
    if located.entry is None:
        return ("restore", "delete")
    promote = ("promote",) if located.entry.scope is not None else ()
    edit = () if from_users_bank(located.entry) else ("edit",)  # its bank's file is the one to edit (ADR 26)
    return edit + ("confirm", "retire", "supersede") + promote + ("delete",)


routes = [Route("/memories/{entry_id}", memory_page, methods=["GET", "HEAD"])]
