"""Jinja2 with autoescape on for every template, and `render`, which gives each page the shared context (nav,
CSRF token, read-only). Stored text is hostile: nothing here marks it safe except through `Markup.format`,
which escapes every argument."""

from __future__ import annotations

import ipaddress
import os
import secrets
from collections import OrderedDict
from typing import Any, Optional
from urllib.parse import urlsplit

from jinja2 import Environment, FileSystemLoader
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import HTMLResponse

from memory_core.safety.inert import one_line, strip_controls

TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")
NAV = (("Memories", "/memories"), ("Review", "/review"), ("Sessions", "/sessions"), ("Overview", "/overview"))
LINK_SCHEMES = ("http", "https")


def reference_html(reference: str) -> Markup:
    """A reference for display: an http(s) URL as a link that leaks nothing to it; anything else (a file, a
    `javascript:` text) as plain escaped text."""
    text = one_line(reference)
    try:
        parts = urlsplit(text)
    except ValueError:
        parts = None
    if parts is not None and parts.scheme.lower() in LINK_SCHEMES and parts.netloc and " " not in text \
            and _public_host(parts):
        return Markup('<a href="{0}" rel="noopener noreferrer">{0}</a>').format(text)
    return Markup("<span>{}</span>").format(text)


def _public_host(parts) -> bool:
    """Whether a URL may be a live link: no user part (`http://trusted.example@evil/` reads as the wrong host)
    and a host off this machine and its network (the browser would send a local server the viewer's cookie,
    which cookies share across ports)."""
    if "@" in parts.netloc:
        return False
    try:
        host = (parts.hostname or "").rstrip(".").lower()
    except ValueError:
        return False
    if not host or host == "localhost" or host.endswith(".localhost"):
        return False
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return "." in host  # a name, not a bare word the browser would resolve locally
    return address.is_global


def _environment() -> Environment:
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True, trim_blocks=True, lstrip_blocks=True)
    env.filters["clean"] = strip_controls  # drops controls and bidi overrides that would reorder what is shown
    env.filters["one_line"] = one_line
    env.filters["reference"] = reference_html
    return env


ENV = _environment()


FLASHES_KEPT = 64


def keep_flash(request: Request, message: str, error: bool = False) -> str:
    """Keep a message for the page a POST redirects to; the key for its `?flash=` (the text itself never rides
    in a URL, so no link can make the page say something)."""
    flashes: OrderedDict = request.app.state.flashes
    key = secrets.token_urlsafe(9)
    flashes[key] = (message, error)
    while len(flashes) > FLASHES_KEPT:
        flashes.popitem(last=False)
    return key


def _taken_flash(request: Request) -> tuple[Optional[str], bool]:
    key = request.query_params.get("flash")
    found = request.app.state.flashes.pop(key, None) if key else None
    return found if found is not None else (None, False)


def render(request: Request, template: str, status_code: int = 200, flash: Optional[str] = None,
           flash_error: bool = False, **context: Any) -> HTMLResponse:
    """A page from its template, with `nav`, `current` (the path), `csrf_token`, `read_only`, `store_label` (the
    footer's) and `flash` (this one, or the one a POST kept for the redirect, `?flash=`)."""
    options = request.app.state.options
    if flash is None:
        flash, flash_error = _taken_flash(request)
    page = ENV.get_template(template).render(
        nav=NAV, current=request.url.path, csrf_token=options.csrf_token, read_only=options.read_only,
        flash=flash, flash_error=flash_error, request=request,
        store_label=getattr(request.app.state, "store_label", ""), **context)
    return HTMLResponse(page, status_code=status_code)
