"""Serve the viewer on 127.0.0.1: bind (port 0 picks a free one), print the launch URL as the first line, open
the browser, run uvicorn in this process until Ctrl-C."""

from __future__ import annotations

import os
import socket
import sys
import threading
from typing import Optional

INSTALL_HINT = "the viewer needs the ui extra: pip install 'iflow-memory[ui]'"
UI_MODULES = ("starlette", "uvicorn", "jinja2", "multipart")


def missing_extra() -> Optional[str]:
    """The first module of the `ui` extra that cannot be imported, or None."""
    import importlib.util

    for name in UI_MODULES:
        if importlib.util.find_spec(name) is None:
            return name
    return None


def bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1 only (never every interface): `port` 0 lets the system pick a free one."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Inherited by each accepted connection: without it every request after a connection's first waits ~40 ms
    # (the response's second write held back until the browser's delayed ACK).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind(("127.0.0.1", port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


REDIRECT_PAGE = """<!doctype html><html><head><meta charset="utf-8">
<meta http-equiv="refresh" content="0;url={url}"><title>iflow-memory</title></head>
<body><p><a href="{url}">Open the iflow-memory viewer</a></p></body></html>
"""


def launch_file(url: str) -> str:
    """A private (0600) page that sends the browser on to `url`: what the browser is given to open, so the token
    never appears in its command line (which every local user can read in /proc)."""
    import html
    import tempfile

    descriptor, path = tempfile.mkstemp(prefix="iflow-memory-ui-", suffix=".html")  # created 0600
    with os.fdopen(descriptor, "w", encoding="utf-8") as page:
        page.write(REDIRECT_PAGE.format(url=html.escape(url, quote=True)))
    return path


def open_in_browser(url: str) -> Optional[str]:
    """Open the browser on `url` through a private launch file; the file's path (to remove at the end), or None."""
    import pathlib
    import webbrowser

    try:
        path = launch_file(url)
    except OSError:
        return None  # no temporary folder to write in: the printed URL is the way in
    try:
        webbrowser.open(pathlib.Path(path).as_uri())
    except Exception:  # no browser here is fine: the URL is printed
        pass
    return path


def serve(service, sock: socket.socket, read_only: bool, open_browser: bool) -> int:
    """Run the viewer over `service` on the bound `sock` until interrupted; 0 when stopped with Ctrl-C."""
    import uvicorn

    from memory_apps.web.app import create_app
    from memory_apps.web.pages.review import start_review
    from memory_apps.web.options import ViewerOptions

    options = ViewerOptions(port=sock.getsockname()[1], read_only=read_only, project_root=service.project_root)
    app = create_app(service, options)
    start_review(app)
    url = options.launch_url()
    print(url, flush=True)  # the first line on stdout: scripts and tests read it
    mode = "read-only, " if read_only else ""
    label = app.state.store_label  # the backend, and a PostgreSQL URL with its password masked
    print(f"iflow-memory ui: serving {label} ({mode}Ctrl-C stops it)", file=sys.stderr, flush=True)
    opened: list = []
    if open_browser:
        threading.Thread(target=lambda: opened.append(open_in_browser(url)), daemon=True).start()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn shuts down, then re-raises the Ctrl-C it caught: a normal way to stop
        pass
    finally:
        sock.close()
        for path in filter(None, opened):
            try:
                os.unlink(path)
            except OSError:
                pass
    return 0

