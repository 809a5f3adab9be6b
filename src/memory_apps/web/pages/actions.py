"""POST /memories/{id}/{action}: edit, confirm, retire, restore, supersede, promote, delete, each through
`MemoryService` (the CLI's use cases); then 303 back to the memory (to /memories after a delete), or the page
again with the error as a flash message."""

from __future__ import annotations

from starlette.responses import RedirectResponse
from starlette.routing import Route

from memory_apps.web.pages.memory import locate_or_answer, missing, show
from memory_apps.web.pages.review import review_changed
from memory_apps.web.rendering import keep_flash
from memory_core.errors import InvalidEntry
from memory_core.safety.inert import one_line
from memory_core.usecases.lifecycle.locate import Located

ACTIONS = ("edit", "confirm", "retire", "restore", "supersede", "promote", "delete")
NEXT_PAGES = ("/memories", "/review", "/sessions", "/overview")
LEARNING_FIELDS = ("name", "description", "reasoning", "category", "confidence", "keywords", "references")


class ActionFailed(Exception):
    """An action the service refused or could not apply: said on the page, not a 500."""


def learning_fields(form) -> dict:
    """The learning a form describes, as `remember`/`edit` take it: keywords split on commas, references one per
    line, blank ones dropped."""
    return {
        "name": form.get("name", ""), "description": form.get("description", ""),
        "reasoning": form.get("reasoning", ""), "category": form.get("category", ""),
        "confidence": form.get("confidence") or None,
        "keywords": [k.strip() for k in form.get("keywords", "").split(",") if k.strip()],
        "references": [r.strip() for r in form.get("references", "").splitlines() if r.strip()],
    }


async def action(request):
    """Apply one action to the memory in the path."""
    text, name = request.path_params["entry_id"], request.path_params["action"]
    if name not in ACTIONS:
        return missing(request, text, f"no action {one_line(name)}", 404)
    service = request.app.state.service
    located = locate_or_answer(request, text)
    if not isinstance(located, Located):
        return located
    form = await request.form()
    if name == "delete" and form.get("confirm") != "yes":
        return show(request, located, confirm_delete=True)
    try:
        target, message, *warning = HANDLERS[name](service, located.entry_id, form)  # see HANDLERS
    except (InvalidEntry, ActionFailed) as exc:
        message = f"{exc.field}: {exc.message}" if isinstance(exc, InvalidEntry) else str(exc)
        kept = {k: form.get(k, "") for k in LEARNING_FIELDS} if name in ("edit", "supersede") else None
        return show(request, service.locate(located.entry_id) or located, flash=f"{name} failed: {message}",
                    flash_error=True, status_code=400, form=kept)
    review_changed(request.app)
    if name != "supersede":  # a superseded memory's page shows the new one; the others go back where asked
        target = back_to(form.get("next"), target)
    return RedirectResponse(f"{target}?flash={keep_flash(request, message, error=bool(warning))}", status_code=303)


def back_to(wanted, default: str) -> str:
    """Where to go after the action: a form's `next` (the Review page sends `/review`) when it is one of this
    viewer's own pages, never another site or a scheme; else `default`."""
    if not isinstance(wanted, str) or not wanted.startswith(NEXT_PAGES):
        return default
    path = wanted.split("?", 1)[0].split("#", 1)[0]
    return path if path.isprintable() and "\\" not in path and "//" not in path else default


def _edit(service, entry_id: str, form):
    # A hand-written bank's entry is refused (HandWritten, an InvalidEntry naming the file to edit): said as a flash.
    edited = service.edit(entry_id, **learning_fields(form))
    if edited is None:
        raise ActionFailed("it is not a live memory")
    if not edited.changed:
        return f"/memories/{edited.id}", "Nothing changed."
    saved = f"Saved: {', '.join(edited.changed)} changed."
    if edited.id != edited.old_id:  # a new description gives a new id; `locate` follows the old one here
        saved += f" New id {edited.id}; the old id {edited.old_id} still finds it."
    return f"/memories/{edited.id}", saved


def _confirm(service, entry_id: str, form):
    confirmed = service.confirm(entry_id)
    if confirmed is None:
        raise ActionFailed("only a live memory can be confirmed")
    target = f"/memories/{entry_id}"
    if confirmed.gone and not confirmed.anchored:  # nothing anchored: a warning, not a success
        return target, f"Not confirmed: {_gone(confirmed.gone)}, so nothing could be anchored to the code. " \
            f"Supersede it with {_instead(confirmed.gone)}, or retire it.", True
    if confirmed.gone:
        return target, f"Partly confirmed: {confirmed.anchored} of {confirmed.cited} citations anchored; " \
            f"{_gone(confirmed.gone)}. Supersede it with {_instead(confirmed.gone)}, or retire it.", True
    return target, f"Confirmed: {confirmed.summary()}"


def _gone(states) -> str:
    """The citations whose file is absent, in words ("src/a.py is gone (moved to src/b.py)")."""
    from memory_core.anchors.regions import parse_reference

    return "; ".join(f"{one_line(parse_reference(s.reference).path)} is gone"
                     + (f" (moved to {one_line(s.moved_to)})" if s.moved_to else "") for s in states)


def _instead(states) -> str:
    return "the new path" if any(s.moved_to for s in states) else "what is true now"


def _retire(service, entry_id: str, form):
    if service.retire(entry_id, form.get("reason", "").strip()) is None:
        raise ActionFailed("it is not a live memory")
    return f"/memories/{entry_id}", "Retired: out of injection and search (Restore brings it back)."


def _restore(service, entry_id: str, form):
    if service.restore(entry_id) is None:
        raise ActionFailed("it is not a retired memory")
    return f"/memories/{entry_id}", "Restored: back in injection and search."


def _supersede(service, entry_id: str, form):
    fields = learning_fields(form)
    stored = service.remember(**fields, supersedes=entry_id)
    return f"/memories/{stored.entry_id}", f"Stored the new learning; {entry_id} is retired as superseded by it."


def _promote(service, entry_id: str, form):
    if not service.promote(entry_id):
        raise ActionFailed("it is not a live memory")
    return f"/memories/{entry_id}", "Promoted: every project's sessions see it now."


def _delete(service, entry_id: str, form):
    if not service.delete(entry_id):  # a retired memory is deleted too, as `iflow-memory delete` does
        raise ActionFailed("it is no longer stored")
    return "/memories", f"Deleted {entry_id}."


# Each handler returns (the page to go back to, the message), and True third when the message is a warning.
HANDLERS = {"edit": _edit, "confirm": _confirm, "retire": _retire, "restore": _restore, "supersede": _supersede,
            "promote": _promote, "delete": _delete}

routes = [Route("/memories/{entry_id}/{action}", action, methods=["POST"])]
