"""Jinja2 with autoescape on for every template, and `render`, which gives each page the shared context (nav,
CSRF token, read-only). Stored text is hostile: nothing here marks it safe except through `Markup.format`,
which escapes every argument."""

from __future__ import annotations

import os
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
    if parts is not None and parts.scheme.lower() in LINK_SCHEMES and parts.netloc and " " not in text:
        return Markup('<a href="{0}" rel="noopener noreferrer">{0}</a>').format(text)
    return Markup("<span>{}</span>").format(text)


def _environment() -> Environment:
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True, trim_blocks=True, lstrip_blocks=True)
    env.filters["clean"] = strip_controls  # drops controls and bidi overrides that would reorder what is shown
    env.filters["one_line"] = one_line
    env.filters["reference"] = reference_html
    return env


ENV = _environment()


def render(request: Request, template: str, status_code: int = 200, flash: Optional[str] = None,
           **context: Any) -> HTMLResponse:
    """A page from its template, with `nav`, `current` (the path), `csrf_token`, `read_only` and `flash`."""
    options = request.app.state.options
    page = ENV.get_template(template).render(
        nav=NAV, current=request.url.path, csrf_token=options.csrf_token, read_only=options.read_only,
        flash=flash, request=request, **context)
    return HTMLResponse(page, status_code=status_code)
