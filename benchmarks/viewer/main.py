"""`python -m benchmarks viewer`: each page of the local web viewer (issue 25) at 10k entries, on SQLite and on
PostgreSQL, against a target of 200 ms a page.

Run from the repository root:

    .venv/bin/python -m benchmarks viewer [--entries 10000] [--rounds 15] [--backends sqlite,postgres]
                                          [--review-timeout 600] [--smoke] [--out PATH]

Each backend gets a store of the synthetic rows the other benchmarks use (with a spread of sources, projects,
scopes and recall times) and a full injection journal (1,000 records, benchmarks/viewer/journal.py), a `MemoryService` opened as `iflow-memory ui` opens it (tool "ui", keyword search:
memory_embedding_provider none) and the viewer's app (`create_app`) served by uvicorn on 127.0.0.1, as
`iflow-memory ui` serves it, in a process of its own (benchmarks/viewer/measure.py). An httpx client signs in with the launch token, then GETs each page over real HTTP,
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
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional, Sequence

from benchmarks.common.paths import RESULTS, ROOT, SRC, shown
from benchmarks.common.processes import log
from benchmarks.common.stats import latency, median, verdict
from benchmarks.common.tables import table
from benchmarks.viewer.measure import REVIEW_PAGES

TARGET_MS = 200.0
DATABASE_URL_ENV = "IFLOW_MEMORY_DATABASE_URL"


def parse_args(argv: Optional[Sequence[str]], prog: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entries", type=int, default=10_000, help="entries in each store (default 10000)")
    parser.add_argument("--rounds", type=int, default=15, help="requests of each page (default 15)")
    parser.add_argument("--backends", default="sqlite,postgres", help="sqlite, postgres or both (default)")
    parser.add_argument("--review-timeout", type=float, default=600.0,
                        help="seconds a page that runs the whole review is given (default 600)")
    parser.add_argument("--smoke", action="store_true", help="a tiny run that only shows the benchmark works")
    parser.add_argument("--out", type=Path, default=RESULTS / "viewer.json", help="where the numbers go")
    args = parser.parse_args(argv)
    args.backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    if set(args.backends) - {"sqlite", "postgres"}:
        parser.error("--backends: sqlite and/or postgres")
    if args.smoke:
        args.entries, args.rounds = 300, 2
    return args


def measure_backend(backend: str, work: Path, entries: int, rounds: int, review_timeout: float) -> dict:
    """Build the store, then serve the viewer over it and time each page in a process of its own (ended once its
    numbers are written, even while a review page still computes); the numbers of this backend."""
    from benchmarks.common.fixtures import make_project
    from benchmarks.viewer import stores

    project = make_project(work / f"project-{backend}", {"embedding_provider": "none"})
    store_dir = work / f"store-{backend}"
    out = work / f"{backend}.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), str(ROOT)])}
    server = None
    started = time.perf_counter()
    try:
        if backend == "postgres":
            from benchmarks.relevance.search_floor_runs import PgServer

            server = PgServer()
            url = server.recreate("viewer_bench")
            built = stores.build_postgres(url, entries)
            env[DATABASE_URL_ENV] = url
        else:
            built = stores.build_sqlite(store_dir / "memory.db", entries)
        from benchmarks.viewer.journal import fill_journal

        journaled = fill_journal(store_dir, [row[0] for row in stores.viewer_rows(min(built, 1000))])
        build_s = round(time.perf_counter() - started, 1)
        log(f"{backend}: {built} entries and {journaled} journal records in {build_s} s; serving the viewer")
        child = subprocess.Popen([sys.executable, "-m", "benchmarks.viewer.measure", str(store_dir), str(project),
                                  str(built), str(rounds), str(review_timeout), str(out)], env=env, cwd=str(ROOT))
        try:
            child.wait(timeout=3600 + 2 * review_timeout)
        except subprocess.TimeoutExpired:
            log(f"{backend}: the measuring process is still running; ending it")
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
        numbers = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {"pages": {}}
        for label, path in REVIEW_PAGES.items():
            numbers["pages"].setdefault(label, {"path": path, "not_asked": "the server was still computing the "
                                                "page before it"})
        return {"entries": built, "journal_records": journaled, "build_s": build_s, **numbers}
    finally:
        if server is not None:
            server.stop()


def report(results: dict, args: argparse.Namespace, load: dict) -> dict:
    """The numbers as JSON data, with a verdict for each page."""
    for numbers in results.values():
        numbers["verdict"] = {label: verdict(page["median_ms"], TARGET_MS) if "median_ms" in page else
                              ("MISSES" if "timed_out_s" in page else "not measured")
                              for label, page in numbers["pages"].items()}
    return {"entries": args.entries, "rounds": args.rounds, "target_ms": TARGET_MS,
            "review_timeout_s": args.review_timeout,
            "transport": "httpx over HTTP to uvicorn on 127.0.0.1 (uvicorn in a thread of the measuring process)",
            "search": "keyword search (memory_embedding_provider: none)", "backends": results, "load": load}


def print_report(numbers: dict) -> None:
    print("# The viewer's pages at 10k entries (issue 25)\n")
    print(f"{numbers['entries']} entries; each page requested {numbers['rounds']} times after a warm-up, "
          f"{numbers['transport']}; {numbers['search']}. Target: every page under {numbers['target_ms']:.0f} ms.\n")
    backends = numbers["backends"]
    labels = list(dict.fromkeys(label for b in backends.values() for label in b["pages"]))
    headers = ["page"] + [f"{b} {k}" for b in backends for k in ("median ms", "p95 ms", "n")] + ["verdict"]
    rows = []
    for label in labels:
        cells = [label]
        for b in backends:
            page = backends[b]["pages"].get(label, {})
            if "median_ms" in page:
                cells += [page["median_ms"], page["p95_ms"], page["rounds"]]
            elif "timed_out_s" in page:
                cells += [f"> {page['timed_out_s'] * 1000:.0f}", "", 1]
            else:
                cells += ["not asked", "", 0]
        cells.append(", ".join(f"{b}: {backends[b]['verdict'].get(label, '')}" for b in backends))
        rows.append(cells)
    floors = [("bare Starlette page", "bare"), ("store SELECT 1", "select_1")]
    for name, key in floors:
        cells = [f"floor: {name}"]
        for b in backends:
            floor = backends[b].get(key, {})
            cells += [floor.get("median_ms", ""), floor.get("p95_ms", ""), ""]
        rows.append(cells + [""])
    print(table(headers, rows, right=range(1, 1 + 3 * len(backends))))
    for b, found in backends.items():
        ready = found.get("review_ready_s")
        computing = {label: page.get("while_computing", {}) for label, page in found["pages"].items()
                     if "while_computing" in page}
        said = ", ".join(f"{label} {c.get('first_ms', '?')} ms ({c.get('status', 'no answer')})"
                         for label, c in computing.items())
        print(f"\n{b}: the review the launch starts was kept after {ready} s" if ready is not None else
              f"\n{b}: the review was not ready in time", end="")
        print(f"; while it computed: {said}." if said else ".")
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
            results[backend] = measure_backend(backend, Path(tmp), args.entries, args.rounds, args.review_timeout)
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
