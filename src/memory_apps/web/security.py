"""The guard in front of every request (ADR 27): the bound Host only, the launch token or its cookie, and for a
POST the CSRF token and a same-origin Origin (or Referer); safety headers on every response.

A pure ASGI middleware, so nothing behind it (a page, static files, an error page) can forget a rule."""

from __future__ import annotations

import hmac
import html
import logging
from http.cookies import SimpleCookie
from typing import Awaitable, Callable, Optional
from urllib.parse import parse_qsl, quote, urlencode

from memory_apps.web.options import ViewerOptions

COOKIE = "iflow_memory_ui"
"""The cookie's name, followed by the port: cookies do not tell ports apart, and two viewers must not evict each
other's."""
MAX_FORM_BYTES = 256 * 1024  # a memory's fields are a few KB; anything larger is not one of our forms
SAFETY_HEADERS = (
    (b"content-security-policy", b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                                 b"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
)
NO_COOKIE_PAGE = (
    "<!doctype html><html><head><meta charset=\"utf-8\"><title>iflow-memory: open the printed URL</title></head>"
    "<body><h1>Open the URL <code>iflow-memory ui</code> printed</h1>"
    "<p>This viewer answers only the browser that opened the address with its launch token "
    "(<code>http://127.0.0.1:PORT/?token=...</code>, the first line <code>iflow-memory ui</code> printed). "
    "Open that address; a restarted viewer prints a new one.</p></body></html>"
)

LANDING_PAGE = ('<!doctype html><html><head><meta charset="utf-8"><title>iflow-memory</title></head>'
                '<body><p><a href="{url}">Open the viewer</a></p></body></html>')

Scope = dict
Receive = Callable[[], Awaitable[dict]]
Send = Callable[[dict], Awaitable[None]]


def same(given: Optional[str], expected: str) -> bool:
    """Whether a secret matches, in constant time (nothing given never matches)."""
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


class Guard:
    """The ASGI middleware that refuses what the launch did not allow (see the module's docstring)."""

    def __init__(self, app, options: ViewerOptions) -> None:
        self.app = app
        self.options = options

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        send = _SafetyHeaders(send)
        try:
            await self._guarded(scope, receive, send)
        except Exception:
            # Starlette's own 500 answer comes from outside this middleware, without the safety headers: answer
            # here instead, and leave the trace to the terminal's log.
            logging.getLogger("uvicorn.error").exception("the viewer failed on %s %s", scope["method"], scope["path"])
            if not send.started:
                await _respond(send, 500, "the viewer failed on this request; the terminal running "
                                          "`iflow-memory ui` shows why\n")

    async def _guarded(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = _headers(scope)
        host = headers.get("host", "")
        if host not in self.options.allowed_hosts:
            await _respond(send, 403, f"refused: Host {host!r} is not this viewer's address\n")
            return
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        token = next((value for key, value in query if key == "token"), None)
        if token is not None and scope["method"] in ("GET", "HEAD"):
            await self._accept_token(scope, send, token, query)
            return
        if not same(_cookie(headers, self.options.port), self.options.token):
            await _respond(send, 403, NO_COOKIE_PAGE, "text/html; charset=utf-8")
            return
        if scope["method"] in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        if scope["method"] != "POST":
            await _respond(send, 405, "method not allowed\n", extra=((b"allow", b"GET, HEAD, POST"),))
            return
        problem = self._post_problem(headers, host)
        if problem:
            await _respond(send, 403, f"refused: {problem}\n")
            return
        body = await _read_body(receive)
        if body is None:
            await _respond(send, 413, "refused: the form is too large\n")
            return
        if not same(_form_field(headers, body, "csrf"), self.options.csrf_token):
            await _respond(send, 403, "refused: the form's CSRF token is missing or wrong (reload the page)\n")
            return
        await self.app(scope, _replay(body), send)

    async def _accept_token(self, scope: Scope, send: Send, token: str, query: list) -> None:
        if not same(token, self.options.token):
            await _respond(send, 403, NO_COOKIE_PAGE, "text/html; charset=utf-8")
            return
        rest = urlencode([(k, v) for k, v in query if k != "token"])
        location = own_path(scope["path"]) + (f"?{rest}" if rest else "")
        cookie = f"{COOKIE}_{self.options.port}={self.options.token}; HttpOnly; SameSite=Strict; Path=/"
        # Not a 303: a redirect keeps the navigation's first initiator, and when that was another site (the private
        # launch file the browser is given, a link in a terminal app) a SameSite=Strict cookie is not sent on it.
        # A page of this origin that refreshes to the clean address starts a same-site navigation of its own.
        page = LANDING_PAGE.format(url=html.escape(location, quote=True))
        await _respond(send, 200, page, "text/html; charset=utf-8",
                       extra=((b"refresh", b"0; url=" + location.encode("latin-1", "replace")),
                              (b"set-cookie", cookie.encode())))

    def _post_problem(self, headers: dict, host: str) -> Optional[str]:
        """Why a POST is refused before its body is read (read-only, a foreign origin), or None."""
        if self.options.read_only:
            return "this viewer is read-only (started with --read-only)"
        origin = f"http://{host}"
        if "origin" in headers:
            return None if headers["origin"] == origin else "the request came from another origin"
        referer = headers.get("referer")
        if referer is None:
            return "the request names no origin (neither Origin nor Referer)"
        return None if referer == origin or referer.startswith(origin + "/") else "the request came from another page"


def own_path(path: str) -> str:
    """A request path fit to redirect to on this viewer: `/` for one a browser would read as another host
    (`//evil.example`, `/\\evil.example`) or that holds control characters; otherwise the path, percent-encoded."""
    if not path.startswith("/") or path.startswith("//") or "\\" in path or any(ord(c) < 0x20 or ord(c) == 0x7F
                                                                               for c in path):
        return "/"
    return quote(path, safe="/-._~!$&'()*+,;=:@")


def _headers(scope: Scope) -> dict[str, str]:
    """The request's headers by lower-case name (the first of repeats: a browser sends each of these once)."""
    found: dict[str, str] = {}
    for name, value in scope.get("headers", []):
        found.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
    return found


def _cookie(headers: dict[str, str], port: int) -> Optional[str]:
    jar = SimpleCookie()
    try:
        jar.load(headers.get("cookie", ""))
    except Exception:  # a malformed Cookie header is a missing cookie, not a crash
        return None
    morsel = jar.get(f"{COOKIE}_{port}")
    return morsel.value if morsel is not None else None


def _form_field(headers: dict[str, str], body: bytes, name: str) -> Optional[str]:
    """A field of a url-encoded form body (the only kind our pages send), or None."""
    if headers.get("content-type", "").split(";")[0].strip().lower() != "application/x-www-form-urlencoded":
        return None
    pairs = parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)
    return next((value for key, value in pairs if key == name), None)


async def _read_body(receive: Receive) -> Optional[bytes]:
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_FORM_BYTES:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes) -> Receive:
    """A `receive` that hands the already-read body to the app, then waits like the real one would."""
    sent = False

    async def receive() -> dict:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}
    return receive


class _SafetyHeaders:
    """The `send` that adds the safety headers to the response's start (and remembers that it started)."""

    def __init__(self, send: Send) -> None:
        self.send, self.started = send, False

    async def __call__(self, message: dict) -> None:
        if message["type"] == "http.response.start":
            self.started = True
            names = {name.lower() for name, _ in message.get("headers", [])}
            message = {**message, "headers": list(message.get("headers", []))
                       + [(name, value) for name, value in SAFETY_HEADERS if name not in names]}
        await self.send(message)


async def _respond(send: Send, status: int, text: str, content_type: str = "text/plain; charset=utf-8",
                   extra: tuple = ()) -> None:
    body = text.encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode()),
                            *extra]})
    await send({"type": "http.response.body", "body": body})
