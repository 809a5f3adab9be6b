"""`python -m benchmarks viewer`: each page of the local web viewer (issue 25) at 10k entries, on SQLite and on
PostgreSQL, against a target of 200 ms a page.

Run from the repository root:

    .venv/bin/python -m benchmarks viewer [--entries 10000] [--rounds 15] [--backends sqlite,postgres]
                                          [--smoke] [--out PATH]

Each backend gets a store of the synthetic rows the other benchmarks use (with a spread of sources, projects,
scopes and recall times), a `MemoryService` opened as `iflow-memory ui` opens it (tool "ui", keyword search:
memory_embedding_provider none) and the viewer's app (`create_app`) served by uvicorn on 127.0.0.1, as
`iflow-memory ui` serves it. An httpx client signs in with the launch token, then GETs each page over real HTTP,
in a rotating order, `--rounds` times after one warm-up: medians (and p95) of the whole request. A page whose
first request took over ten times the target (2 s) is not asked again: that request is its one sample (n = 1). In the same run
the floors: a bare Starlette page returning "ok" from the same uvicorn setup (the HTTP cost), and a `SELECT 1`
round trip on the store's connection. PostgreSQL is a throwaway pgserver (bundled PostgreSQL + pgvector).
Writes benchmarks/results/viewer.json (or --out).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional, Sequence

from benchmarks.common.paths import RESULTS, shown
from benchmarks.common.processes import log
from benchmarks.common.stats import latency, median, verdict
from benchmarks.common.tables import table

TARGET_MS = 200.0
PER_PAGE = 50  # the listing's default page size
DATABASE_URL_ENV = "IFLOW_MEMORY_DATABASE_URL"


def pages(entry_id: str, entries: int) -> dict[str, str]:
    """The pages timed, by label: the issue's list, with one entry's page, the last page of the listing (the
    deepest OFFSET) and the stale filter (which asks the review for its stale ids)."""
    last = max(1, -(-entries // PER_PAGE))
    return {"/memories": "/memories",
            "/memories (filter)": "/memories?category=patterns&project=alpha&trusted=yes&sort=name",
            "/memories (last page)": f"/memories?sort=-updated&page={last}",
            "/memories?q=": "/memories?q=retry+parser+timeout",
            "/memories/{id}": f"/memories/{entry_id}",
            "/memories?stale=1": "/memories?stale=1",
            "/review": "/review", "/sessions": "/sessions", "/overview": "/overview"}


def parse_args(argv: Optional[Sequence[str]], prog: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entries", type=int, default=10_000, help="entries in each store (default 10000)")
    parser.add_argument("--rounds", type=int, default=15, help="requests of each page (default 15)")
    parser.add_argument("--backends", default="sqlite,postgres", help="sqlite, postgres or both (default)")
    parser.add_argument("--smoke", action="store_true", help="a tiny run that only shows the benchmark works")
    parser.add_argument("--out", type=Path, default=RESULTS / "viewer.json", help="where the numbers go")
    args = parser.parse_args(argv)
    args.backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    if set(args.backends) - {"sqlite", "postgres"}:
        parser.error("--backends: sqlite and/or postgres")
    if args.smoke:
        args.entries, args.rounds = 300, 2
    return args


def measure_backend(backend: str, work: Path, entries: int, rounds: int) -> dict:
    """Build the store, serve the viewer over it and time each page; the numbers of this backend."""
    from benchmarks.common.fixtures import make_project
    from benchmarks.viewer import stores
    from benchmarks.viewer.serving import Served, bare_app, time_pages

    project = make_project(work / f"project-{backend}", {"embedding_provider": "none"})
    store_dir = work / f"store-{backend}"
    server = None
    started = time.perf_counter()
    try:
        if backend == "postgres":
            from benchmarks.relevance.search_floor_runs import PgServer

            server = PgServer()
            url = server.recreate("viewer_bench")
            built = stores.build_postgres(url, entries)
            os.environ[DATABASE_URL_ENV] = url
        else:
            built = stores.build_sqlite(store_dir / "memory.db", entries)
        build_s = round(time.perf_counter() - started, 1)
        log(f"{backend}: {built} entries in {build_s} s; serving the viewer")
        from memory_apps.service import MemoryService
        from memory_core.entries.browsing import BrowseQuery

        with MemoryService(global_store=str(store_dir), project_root=str(project), tool="ui",
                           create=True) as service:
            from memory_apps.web.app import create_app
            from memory_apps.web.options import ViewerOptions

            def viewer_app(port: int) -> tuple:
                options = ViewerOptions(port=port, project_root=str(project))
                return create_app(service, options), options.launch_url()

            store = service.container.store()
            entry_id = store.browse(BrowseQuery(per_page=1)).entries[0].id
            with Served(viewer_app) as viewer, Served(lambda port: (bare_app(), None)) as bare:
                timed = time_pages(viewer, bare, pages(entry_id, built), rounds, slow_ms=10 * TARGET_MS)
            timed["select_1"] = _select_one(store, rounds * 10)
        return {"entries": built, "build_s": build_s, **timed}
    finally:
        os.environ.pop(DATABASE_URL_ENV, None)
        if server is not None:
            server.stop()


def _select_one(store, calls: int) -> dict:
    """The store's round trip: `SELECT 1` on its connection (ms)."""
    connection = store.connection
    samples = []
    for _ in range(calls):
        started = time.perf_counter()
        connection.read("SELECT 1")
        samples.append((time.perf_counter() - started) * 1000)
    return latency(samples)


def report(results: dict, args: argparse.Namespace, load: dict) -> dict:
    """The numbers as JSON data, with a verdict for each page."""
    for numbers in results.values():
        numbers["verdict"] = {label: verdict(page["median_ms"], TARGET_MS) for label, page in numbers["pages"].items()}
    return {"entries": args.entries, "rounds": args.rounds, "target_ms": TARGET_MS,
            "transport": "httpx over HTTP to uvicorn on 127.0.0.1 (in this process, its own thread)",
            "search": "keyword search (memory_embedding_provider: none)", "backends": results, "load": load}


def print_report(numbers: dict) -> None:
    print("# The viewer's pages at 10k entries (issue 25)\n")
    print(f"{numbers['entries']} entries; each page requested {numbers['rounds']} times after a warm-up, "
          f"{numbers['transport']}; {numbers['search']}. Target: every page under {numbers['target_ms']:.0f} ms.\n")
    backends = numbers["backends"]
    labels = list(next(iter(backends.values()))["pages"]) if backends else []
    headers = ["page"] + [f"{b} {k}" for b in backends for k in ("median ms", "p95 ms", "n")] + ["verdict"]
    rows = []
    for label in labels:
        cells = [label]
        for b in backends:
            page = backends[b]["pages"][label]
            cells += [page["median_ms"], page["p95_ms"], page["rounds"]]
        cells.append(", ".join(f"{b}: {backends[b]['verdict'][label]}" for b in backends))
        rows.append(cells)
    floors = [("bare Starlette page", "bare"), ("store SELECT 1", "select_1")]
    for name, key in floors:
        cells = [f"floor: {name}"]
        for b in backends:
            cells += [backends[b][key]["median_ms"], backends[b][key]["p95_ms"], ""]
        rows.append(cells + [""])
    print(table(headers, rows, right=range(1, 1 + 3 * len(backends))))
    load = numbers["load"]
    print(f"\nLoad average {' / '.join(map(str, load['loadavg_at_start']))} at the start, "
          f"{' / '.join(map(str, load['loadavg_at_end']))} at the end (the machine's other work slows every row).")


def main(argv: Optional[Sequence[str]] = None, prog: str = "python -m benchmarks viewer") -> int:
    args = parse_args(argv, prog)
    try:
        import httpx  # noqa: F401
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        print(f"Skipped: the viewer needs the ui extra and httpx ({exc}): pip install -e '.[ui,dev]'")
        return 1
    load_start = [round(x, 2) for x in os.getloadavg()]
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-viewer-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        os.environ["HOME"] = str(home)  # the service's own files (journal, caches) stay in the run's folder
        for backend in args.backends:
            results[backend] = measure_backend(backend, Path(tmp), args.entries, args.rounds)
    from benchmarks.suite.machine import machine

    numbers = {"machine": machine(), **report(results, args, {
        "loadavg_at_start": load_start, "loadavg_at_end": [round(x, 2) for x in os.getloadavg()]})}
    print_report(numbers)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(numbers, indent=2, default=str) + "\n", encoding="utf-8")
    print(f"\nNumbers: {shown(args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
