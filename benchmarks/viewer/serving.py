"""Serving an ASGI app as `iflow-memory ui` does (uvicorn on a socket bound to 127.0.0.1, here in a thread of the
benchmark's process) and timing pages over real HTTP with httpx."""

from __future__ import annotations

import threading
import time
from typing import Callable, Optional

from benchmarks.common.stats import latency


class Served:
    """`with Served(make) as client:` — `make(port)` returns (app, launch URL or None); the app is served on a
    free port of 127.0.0.1 until the block ends; `client` is an httpx client on it, signed in through the launch
    URL when there is one (the cookie set), redirects not followed."""

    def __init__(self, make: Callable[[int], tuple]) -> None:
        self._make = make
        self._server = None
        self._thread: Optional[threading.Thread] = None
        self.client = None

    def __enter__(self):
        import httpx
        import uvicorn

        from memory_apps.web.server import bind

        sock = bind(0)
        port = sock.getsockname()[1]
        app, launch_url = self._make(port)
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"))
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]}, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 60
        while not self._server.started:  # polled generously: a busy machine starts it late
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        self.client = httpx.Client(base_url=f"http://127.0.0.1:{port}", follow_redirects=False, timeout=1800)
        if launch_url:
            answer = self.client.get(launch_url)
            # the landing page sets the cookie and answers 200 (it refreshes to a clean path); a redirect did once
            if answer.status_code not in (200, 303) or not self.client.cookies:
                raise RuntimeError(f"signing in with the launch URL answered {answer.status_code}")
        return self.client

    def __exit__(self, *exc_info) -> None:
        if self.client is not None:
            self.client.close()
        self._server.should_exit = True
        self._thread.join(timeout=60)


def bare_app():
    """The floor: a Starlette app whose one page returns "ok" (routing, HTTP and the client, no viewer)."""
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    async def ok(request):
        return PlainTextResponse("ok")

    return Starlette(routes=[Route("/", ok)])


def time_pages(viewer, bare, pages: dict[str, str], rounds: int) -> dict:
    """Each page GET `rounds` times after one warm-up, in a rotating order, with the bare page as a floor: the
    latency of each (ms), its status, size and first request."""
    labels = list(pages)
    samples: dict[str, list[float]] = {label: [] for label in labels}
    floor: list[float] = []
    shapes = {label: once(viewer, pages[label]) for label in labels}  # warm-up: templates, the service's caches
    bare.get("/")
    for n in range(rounds):
        order = labels[n % len(labels):] + labels[:n % len(labels)]
        for label in order:
            started = time.perf_counter()
            answer = viewer.get(pages[label])
            samples[label].append((time.perf_counter() - started) * 1000)
            if answer.status_code != shapes[label]["status"]:
                raise RuntimeError(f"{pages[label]} answered {answer.status_code}, first {shapes[label]['status']}")
        started = time.perf_counter()
        bare.get("/")
        floor.append((time.perf_counter() - started) * 1000)
    return {"pages": {label: {**latency(samples[label]), "path": pages[label], "rounds": rounds, **shapes[label]}
                      for label in labels}, "bare": latency(floor)}


def once(client, path: str, timeout: Optional[float] = None) -> dict:
    """One GET of `path`: its status, size and time (ms); `timed_out_s` instead when no answer came in
    `timeout` seconds."""
    import httpx

    from benchmarks.common.processes import log

    started = time.perf_counter()
    try:
        answer = client.get(path, timeout=timeout) if timeout else client.get(path)
    except httpx.TimeoutException:
        log(f"  {path}: no answer in {timeout:.0f} s")
        return {"path": path, "timed_out_s": timeout}
    ms = (time.perf_counter() - started) * 1000
    log(f"  {path}: {answer.status_code}, {ms:.0f} ms")
    return {"status": answer.status_code, "bytes": len(answer.content), "first_ms": round(ms, 1)}
