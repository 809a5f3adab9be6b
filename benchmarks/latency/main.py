"""`python -m benchmarks latency`: warm search latency (issue 12), `MemoryService.search` and the MCP
`search_memory` tool, called in process on a long-lived service, at 1k and 10k entries, with the bundled local
embedder (all-MiniLM-L6-v2 int8, 384 dims).

    python -m benchmarks latency [--entries 10000] [--calls 50] [--keep]
    python -m benchmarks latency --src /tmp/old/src --out /tmp/old.json   # another checkout

The stores are synthetic: entry texts drawn word by word from the repository's own prose (README and ADRs,
with their word frequencies) at the lengths of the real knowledge bank (title ~6 words, description ~25,
reasoning ~55, 3-6 keywords); vectors are real model embeddings of 256 such texts, each entry a noisy copy of
one (cosine ~0.9), stored in the pinned local space with the flat vector cache written. One service per size
is warmed with one search, then `--calls` different queries are timed (median, p95), then the same queries
again, then `--calls` others through the MCP tool. A last pass times the parts by wrapping the adapters' methods
(a method that no longer exists stops the run, unless --allow-missing-parts), and a floor is measured in the same
run: the query embedding alone plus one matrix-vector product over the stored matrix. The report says how many
cores other processes kept busy meanwhile: on a shared 2-core machine numbers are only comparable between runs
where that is near 0. Prints markdown tables; writes benchmarks/results/latency.json. Not part of the `suite`
section; the test suite runs it once at 1,000 entries (a smoke test). The parts are in benchmarks/latency/.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional, Sequence

from benchmarks.common.paths import RESULTS as RESULTS_DIR
from benchmarks.common.paths import SRC
from benchmarks.common.prose import queries, vector_pool
from benchmarks.common.stats import latency
from benchmarks.common.timer import time_ms, timed_calls
from benchmarks.latency.passes import LIMIT, breakdown, floor, mcp_calls
from benchmarks.common.machine import busy_seconds, others_cores
from benchmarks.latency.report import render
from benchmarks.latency.store import build_store, make_project

RESULTS = RESULTS_DIR / "latency.json"


def measure(size: int, workdir: Path, calls: int, embedder, pool, strict: bool = True) -> dict:
    """Every pass at one size, over a fresh store and a service warmed with one search."""
    from memory_apps.service import MemoryService

    project = make_project(workdir / f"project-{size}")
    store_dir = workdir / f"store-{size}"
    built = build_store(store_dir, project, size, pool)
    print(f"[latency] {size} entries built in {built['build_s']} s", file=sys.stderr, flush=True)
    texts, mcp_texts, part_texts = (queries(calls, seed) for seed in (7, 8, 9))  # no pass repeats another's query
    warm_ms, (service, first) = time_ms(lambda: _warm_service(MemoryService, store_dir, project))
    if not first.vector.ran or not first.keyword.ran:
        raise RuntimeError(f"a signal did not run: vector {first.vector}, keyword {first.keyword}")
    result = {"store": built, "construct_and_first_search_ms": round(warm_ms, 1)}
    result["service"] = latency(timed_calls(lambda q: service.search(q, limit=LIMIT), texts))
    result["service_repeated_queries"] = latency(timed_calls(lambda q: service.search(q, limit=LIMIT), texts))
    mcp = mcp_calls(service, mcp_texts)
    result["mcp"] = latency(mcp) if mcp else None
    result["breakdown_ms"], missing = breakdown(service, part_texts, strict)
    if missing:
        result["breakdown_missing"] = missing
        print(f"[latency] not timed (absent): {', '.join(missing)}", file=sys.stderr, flush=True)
    result["floor"] = floor(embedder, store_dir, texts)
    result["ratio_to_floor"] = round(result["service"]["median_ms"] / result["floor"]["median_ms"], 2)
    return result


def _warm_service(service_class, store_dir: Path, project: Path):
    service = service_class(global_store=str(store_dir), project_root=str(project))
    return service, service.search("warm up the service with one search", limit=LIMIT)


def main(argv: Optional[Sequence[str]] = None, prog: Optional[str] = None) -> int:
    """Measure 1,000 entries and --entries, print the tables and write the JSON results."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=10_000, help="the larger store (1000 is always measured)")
    parser.add_argument("--calls", type=int, default=50, help="timed searches per size")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument("--src", default=str(SRC), help="the code to measure (another checkout's src)")
    parser.add_argument("--out", default=str(RESULTS), help="where the JSON results go")
    parser.add_argument("--allow-missing-parts", action="store_true",
                        help="for an older --src: list the timed methods it lacks instead of stopping")
    args = parser.parse_args(argv)
    sys.path.insert(0, os.path.abspath(args.src))  # before any product module is imported
    from memory_adapters.embedders.local_embedder import LocalOnnxEmbedder
    from memory_core.embedding.normalising import NormalisingEmbedder

    workdir = Path(tempfile.mkdtemp(prefix="iflow-search-latency-"))
    os.environ["HOME"] = str(workdir / "home")  # nothing touches the real ~/.claude
    os.environ["GIT_CEILING_DIRECTORIES"] = str(workdir)
    embedder = NormalisingEmbedder(LocalOnnxEmbedder())
    started, busy_at_start = time.perf_counter(), busy_seconds()
    results: dict = {"machine": {"loadavg_before": [round(x, 2) for x in os.getloadavg()],
                                 "cores": len(os.sched_getaffinity(0)), "python": sys.version.split()[0]},
                     "calls": args.calls, "limit": LIMIT, "src": os.path.abspath(args.src), "sizes": {}}
    try:
        pool = vector_pool(embedder)
        for size in sorted({1000, args.entries}):
            results["sizes"][size] = measure(size, workdir, args.calls, embedder, pool,
                                             strict=not args.allow_missing_parts)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            print(f"[latency] kept {workdir}", file=sys.stderr)
    results["machine"]["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
    results["machine"]["others_cores"] = others_cores(busy_at_start, time.perf_counter() - started)
    print(render(results))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0
