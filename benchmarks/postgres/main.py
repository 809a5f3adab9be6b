"""`python -m benchmarks postgres`: session starts and warm searches on PostgreSQL at 10k, 100k and 1M synthetic
entries next to SQLite (10k, 100k), N concurrent writer processes, and EXPLAIN ANALYZE of a session start's
statements at the largest size; tables on stdout, every number in benchmarks/results/postgres.json.

A pgserver (bundled PostgreSQL 16 + pgvector 0.6.2) keeps its data in ~/.cache/iflow-memory-bench/pgdata
(--data-dir), so each size's database is built once (COPY, then indexes, then HNSW; `bench_build` marks it
complete) and reused; --url uses a server of your own instead. The 1M database takes about half an hour to
build the first time: `python -m benchmarks postgres-build --sizes 1000000` builds it alone.
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
from benchmarks.postgres import explain, load, report, search, sessions, writers
from benchmarks.postgres.server import DEFAULT_DATA_DIR, Server, cpu_count, masked
from benchmarks.postgres.setup import bench_project, embedder, log, vector_pool

RESULTS = RESULTS_DIR / "postgres.json"


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(t) for t in text.split(",") if t.strip())


def parse(argv: Optional[Sequence[str]], prog: Optional[str] = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=_ints, default=(10_000, 100_000, 1_000_000), help="PostgreSQL sizes")
    parser.add_argument("--sqlite-sizes", type=_ints, default=(10_000, 100_000), help="SQLite sizes")
    parser.add_argument("--runs", type=int, default=10, help="timed hook rounds and in-process sessions per size")
    parser.add_argument("--calls", type=int, default=30, help="timed searches per size")
    parser.add_argument("--writers", type=_ints, default=(1, 2, 4, 8), help="writer process counts")
    parser.add_argument("--writes", type=int, default=1000, help="upserts per writer process")
    parser.add_argument("--explain-sizes", type=_ints, default=None, help="default: the largest size")
    parser.add_argument("--url", default=None, help="an existing server (postgresql://…/postgres) instead")
    parser.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR), help="the pgserver data directory (kept)")
    parser.add_argument("--out", default=str(RESULTS), help="where the JSON results go")
    return parser.parse_args(argv)


def measure_size(backend: str, size: int, ctx: dict, args) -> dict:
    """Build (or reuse) one store and run the session and search passes over it."""
    work, project, scope = ctx["work"], ctx["project"], ctx["scope"]
    store = work / f"{backend}-{size}"
    store.mkdir(parents=True, exist_ok=True)
    if backend == "postgres":
        build = load.build_postgres(ctx["server"], size, ctx["pool"], ctx["texts"], scope, project, log)
        url = ctx["server"].url(load.database_name(size))
    else:
        build, url = load.build_sqlite(store, size, ctx["pool"], ctx["texts"], scope, project), None
        log(f"SQLite {size:,}: built in {build['build_s']} s")
    models_store = work / f"{backend}-{size}-models"  # the same store, its sessions with the model's copy cached
    shutil.copytree(store, models_store)
    result: dict = {"build": build}
    log(f"{backend} {size:,}: session starts (hook processes)")
    result["hook"] = sessions.hook_runs(project, store, models_store, ctx["env"], args.runs, url, work,
                                        models_env=ctx["models_env"])
    log(f"{backend} {size:,}: in-process sessions and searches")
    result["in_process"] = sessions.in_process(project, store, url, args.runs)
    result["search"] = search.warm_search(project, store, url, args.calls, ctx["model"])
    if url and size in ctx["explain_sizes"]:
        log(f"{backend} {size:,}: EXPLAIN ANALYZE of a session start's statements")
        ctx["explain"][size] = explain.session_queries(project, store, url, 777_000_000 + size)
    shutil.rmtree(models_store, ignore_errors=True)
    return result


def verdicts(results: dict) -> list[str]:
    """Whether the largest PostgreSQL size's session start answers semantically inside the hook's 3 s."""
    lines = []
    largest = max((s for s, p in results["sizes"].items() if "postgres" in p), default=None)
    hook = results["sizes"].get(largest, {}).get("postgres", {}).get("hook")
    if hook:
        new = hook["new_context"]
        why = f" (stderr: {new['stderr']})" if new.get("stderr") else ""
        ok = new["p95_ms"] <= sessions.HOOK_TIMEOUT_S * 1000 and new["paths"] == "active"
        lines.append(f"{largest:,} entries, postgres, new context: {new['median_ms']:.0f} ms median, "
                     f"{new['p95_ms']:.0f} ms p95, path {new['paths']}, active within 3 s in "
                     f"{new['active_within_3s']} runs: {'MEETS' if ok else 'MISSES'} the hook's deadline. "
                     f"Diagnostic: {new['diagnostic'] or '(nothing printed)'}{why}")
    return lines


def main(argv: Optional[Sequence[str]] = None, prog: Optional[str] = None) -> int:
    """Run every pass, print the tables and write the JSON."""
    args = parse(argv, prog)
    work = Path(tempfile.mkdtemp(prefix="iflow-pg-bench-"))
    os.environ["HOME"] = str(work / "home")  # nothing touches the real ~/.claude
    os.environ["GIT_CEILING_DIRECTORIES"] = str(work)
    os.environ.pop(sessions.DATABASE_URL_ENV, None)
    results: dict = {"machine": {"cores": cpu_count(), "loadavg_start": [round(x, 2) for x in os.getloadavg()],
                                 "python": sys.version.split()[0]}, "runs": args.runs, "calls": args.calls,
                     "sizes": {}, "explain": {}}
    server = Server(args.url, Path(args.data_dir))
    started = time.perf_counter()
    try:
        results["server"], results["url"] = server.settings(), masked(server.url("…"))
        model = embedder()
        pool, texts = vector_pool(model)
        project, scope = bench_project(Path(args.data_dir).parent / "project")
        from memory_adapters.embedders.local_embedder import LocalOnnxEmbedder
        from memory_apps.wiring.values import MODEL_CACHE_LEVELS, MODEL_CACHE_PARTS

        models = work / "cache-with-models"  # an XDG_CACHE_HOME holding the model's optimised copy
        LocalOnnxEmbedder(cache_dir=str(models.joinpath(*MODEL_CACHE_PARTS)), write_model_cache=True,
                          cache_private_levels=MODEL_CACHE_LEVELS).embed_query("build the optimised copy")
        env = {**sessions.environment(work / "home", work, None), "XDG_CACHE_HOME": str(work / "cache-empty")}
        ctx = {"work": work, "project": project, "scope": scope, "server": server, "pool": pool, "texts": texts,
               "model": model, "env": env, "models_env": {**env, "XDG_CACHE_HOME": str(models)},
               "explain_sizes": args.explain_sizes or (max(args.sizes),) if args.sizes else (),
               "explain": results["explain"]}
        for size in sorted(set(args.sizes) | set(args.sqlite_sizes)):
            per = results["sizes"].setdefault(size, {})
            for backend, wanted in (("postgres", args.sizes), ("sqlite", args.sqlite_sizes)):
                if size in wanted:
                    per[backend] = measure_size(backend, size, ctx, args)
                    shutil.rmtree(work / f"{backend}-{size}", ignore_errors=True)
        if args.writers:
            results["writers"] = {"writes_per_process": args.writes,
                                  "runs": writers.concurrent_writers(server, args.writers, args.writes, ctx["env"],
                                                                     log)}
    finally:
        server.close()
        shutil.rmtree(work, ignore_errors=True)
    results["machine"]["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    results["machine"]["wall_s"] = round(time.perf_counter() - started, 1)
    results["verdicts"] = verdicts(results)
    print(report.render(results))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, default=str) + "\n", encoding="utf-8")
    return 0
