"""N concurrent writers, each a process of its own, upserting into a fresh PostgreSQL database and, as the
floor, into a fresh SQLite store: throughput (writes/s from the common start to the last write) and the
latency of one write (median, p95)."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common.processes import PROCS
from benchmarks.common.stats import latency
from benchmarks.postgres.server import Server

WRITER = PROCS / "writer.py"
STARTUP_S = 4.0  # every process has imported and connected by then


def _run(backend: str, target: str, writers: int, writes: int, env: dict) -> dict:
    start_at = time.time() + STARTUP_S
    procs = [subprocess.Popen([sys.executable, str(WRITER), backend, target, str(w), str(writes), str(start_at)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for w in range(writers)]
    outputs = []
    for p in procs:
        out, err = p.communicate(timeout=600)
        if p.returncode != 0:
            raise RuntimeError(f"{backend} writer failed: {err[-2000:]}")
        outputs.append(json.loads(out.strip().splitlines()[-1]))
    samples = [ms for o in outputs for ms in o["latencies_ms"]]
    begun = min(o["start"] for o in outputs)
    if begun < start_at - 0.05:
        raise RuntimeError("a writer started before the others were ready: raise STARTUP_S")
    elapsed = max(o["end"] for o in outputs) - begun
    return {"writes": len(samples), "seconds": round(elapsed, 2), "writes_per_s": round(len(samples) / elapsed, 1),
            **latency(samples)}


def concurrent_writers(server: Server, counts: tuple[int, ...], writes: int, env: dict, log) -> dict:
    """For each N: N writer processes against a fresh PostgreSQL database, then against a fresh SQLite file."""
    from memory_adapters.store.postgres.store import PostgresEntryStore
    from memory_adapters.store.sqlite.store import SqliteEntryStore

    results: dict = {}
    for n in counts:
        url = server.recreate("iflow_bench_writers")
        PostgresEntryStore(url).close()  # migrated before the writers start: they measure writes only
        postgres = _run("postgres", url, n, writes, env)
        with tempfile.TemporaryDirectory(prefix="iflow-bench-writers-") as tmp:
            SqliteEntryStore(str(Path(tmp) / "memory.db")).close()
            sqlite = _run("sqlite", str(Path(tmp) / "memory.db"), n, writes, env)
        results[n] = {"postgres": postgres, "sqlite": sqlite}
        log(f"writers {n}: PostgreSQL {postgres['writes_per_s']}/s (p95 {postgres['p95_ms']} ms), "
            f"SQLite {sqlite['writes_per_s']}/s (p95 {sqlite['p95_ms']} ms)")
    server.drop("iflow_bench_writers")
    return results
