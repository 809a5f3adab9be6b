"""One backend's measurement, run as its own process by `benchmarks.viewer.main` (so a page that computes for
minutes can be left behind: the process is ended once its numbers are written).

    python -m benchmarks.viewer.measure STORE_DIR PROJECT ENTRIES ROUNDS REVIEW_TIMEOUT_S OUT_JSON

The store is already built (a SQLite store in STORE_DIR, or PostgreSQL named by IFLOW_MEMORY_DATABASE_URL). The
quick pages are timed first, `ROUNDS` times each; then each page that runs the whole review, once, given
REVIEW_TIMEOUT_S seconds; the numbers are written to OUT_JSON after each step.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from benchmarks.common.stats import latency
from benchmarks.viewer.journal import NEWEST_SESSION

PER_PAGE = 50  # the listing's default page size


def quick_pages(entry_id: str, entries: int) -> dict[str, str]:
    """The pages answered from the store's own paging and counts (and the search), by label."""
    last = max(1, -(-entries // PER_PAGE))
    return {"/memories": "/memories",
            "/memories (filter)": "/memories?category=patterns&project=alpha&trusted=yes&sort=name",
            "/memories (last page)": f"/memories?sort=-updated&page={last}",
            "/memories?q=": "/memories?q=retry+parser+timeout",
            "/memories/{id}": f"/memories/{entry_id}",
            "/sessions": "/sessions", "/sessions?session=": f"/sessions?session={NEWEST_SESSION}",
            "/overview": "/overview"}


REVIEW_PAGES = {"/review": "/review", "/memories?stale=1": "/memories?stale=1"}
"""Pages that read the whole review (stale citations, near-duplicate pairs, superseded): computed in the background
from the launch on a big store, then kept."""


def select_one(store, calls: int) -> dict:
    """The store's round trip: `SELECT 1` on its connection (ms)."""
    samples = []
    for _ in range(calls):
        started = time.perf_counter()
        store.connection.read("SELECT 1")
        samples.append((time.perf_counter() - started) * 1000)
    return latency(samples)


def measure(store_dir: str, project: str, entries: int, rounds: int, review_timeout: float, out: Path) -> None:
    from benchmarks.viewer.serving import Served, bare_app, once, time_pages
    from memory_apps.web.pages.review import SYNC_LIMIT, start_review
    from memory_apps.service import MemoryService
    from memory_apps.web.app import create_app
    from memory_apps.web.options import ViewerOptions
    from memory_core.entries.browsing import BrowseQuery

    def write(numbers: dict) -> None:
        out.write_text(json.dumps(numbers, indent=2) + "\n", encoding="utf-8")

    service = MemoryService(global_store=store_dir, project_root=project, tool="ui", create=True)
    store = service.container.store()

    apps: list = []

    def viewer_app(port: int) -> tuple:
        options = ViewerOptions(port=port, project_root=project)
        apps.append(create_app(service, options))
        return apps[-1], options.launch_url()

    entry_id = store.browse(BrowseQuery(per_page=1)).entries[0].id
    with Served(viewer_app) as viewer, Served(lambda port: (bare_app(), None)) as bare:
        numbers = time_pages(viewer, bare, quick_pages(entry_id, entries), rounds)
        numbers["select_1"] = select_one(store, rounds * 10)
        write(numbers)
        started = time.perf_counter()
        start_review(apps[-1])  # as `iflow-memory ui` does at launch
        first = {label: once(viewer, path, review_timeout) for label, path in REVIEW_PAGES.items()}
        kept = apps[-1].state.review_keeper.get(review_timeout).kept if entries > SYNC_LIMIT else True
        numbers["review_ready_s"] = round(time.perf_counter() - started, 2) if kept else None
        write(numbers)
        if kept:
            timed = time_pages(viewer, bare, REVIEW_PAGES, rounds)
            for label in REVIEW_PAGES:
                numbers["pages"][label] = {**timed["pages"][label], "while_computing": first[label]}
        numbers["complete"] = bool(kept)
        write(numbers)
    os._exit(0)  # a review left computing in the server's thread is abandoned with the process


if __name__ == "__main__":
    store_dir, project, entries, rounds, timeout, out = sys.argv[1:7]
    measure(store_dir, project, int(entries), int(rounds), float(timeout), Path(out))
