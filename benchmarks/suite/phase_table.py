"""Section 1b's phase table: the injector run in-process by benchmarks/procs/phases.py, which times each step."""

from __future__ import annotations

import json
import time
from pathlib import Path

from benchmarks.common.processes import check, injector_args, proc, run_proc
from benchmarks.common.stats import median
from benchmarks.common.tables import table
from benchmarks.suite.report import Report

VARIANTS = (("keyword", "keyword-project", False), ("vector_stub", "vector-project", True),
            ("vector_local", "vector-project", False))
TOTALS = ("wall_ms", "startup_ms", "exit_ms", "imports_ms", "main_ms")


def phase_table(report: Report, env: dict, base: Path, size: int) -> dict:
    """Median (of 3 after 1 warm-up) time of each step on each path, printed as a table and returned."""
    phases = {name: _phases(env, base, base / project, stub) for name, project, stub in VARIANTS}
    names = [n for n, _, _ in VARIANTS]
    labels = sorted(set().union(*(phases[n]["phases_ms"] for n in names)),
                    key=lambda lab: -phases["vector_local"]["phases_ms"].get(lab, 0.0))

    def rest(p: dict) -> float:
        return round(p["wall_ms"] - p["startup_ms"] - p["imports_ms"] - p["main_ms"] - p["exit_ms"], 1)

    def other(p: dict) -> float:
        return round(p["main_ms"] - sum(p["phases_ms"].values()), 1)

    rows = [("interpreter start (spawn -> first line of the wrapper)", *[phases[n]["startup_ms"] for n in names]),
            ("interpreter exit (last line -> process reaped)", *[phases[n]["exit_ms"] for n in names]),
            ("unaccounted (wall - the above - imports - main)", *[rest(phases[n]) for n in names]),
            ("imports of the injector's modules (the wrapper imports numpy and the model adapter on every path)",
             *[phases[n]["imports_ms"] for n in names])]
    rows += [(lab, *[phases[n]["phases_ms"].get(lab, 0.0) for n in names]) for lab in labels]
    rows.append(("other (inside main, not in a timed step: argparse, config, container, thread)",
                 *[other(phases[n]) for n in names]))
    rows.append(("**wall time of the instrumented process**", *[phases[n]["wall_ms"] for n in names]))
    report.out(f"\nPhase timer at {size:,} entries (the injector run in-process by a wrapper that times each "
               "step; self times in ms with nested steps subtracted; median of 3 after 1 warm-up; the wrapper "
               "imports every module up front, so numpy counts as an import on every path here).\n")
    report.out(table(["phase", "(a) keyword", "(b') vector stub", "(b) vector local"], rows, right=(1, 2, 3)))
    return phases


def _phases(env: dict, base: Path, project: Path, stub: bool) -> dict:
    runs = []
    for _ in range(4):
        run_env = dict(env, BENCH_STUB="1" if stub else "0", BENCH_SPAWNED_AT=repr(time.time()))
        ms, done = run_proc(proc("phases", *injector_args(project, base / "store")), run_env, base)
        reaped_at = time.time()
        data = json.loads(check(done, "the phase timer (benchmarks/procs/phases.py)").stderr.strip().splitlines()[-1])
        data["wall_ms"] = ms
        data["exit_ms"] = (reaped_at - data["exiting_at"]) * 1000
        runs.append(data)
    runs = runs[1:]  # the first run warms caches
    labels = set().union(*(r["phases"] for r in runs))
    return {**{key: round(median([r[key] for r in runs]), 1) for key in TOTALS},
            "phases_ms": {lab: round(median([r["phases"].get(lab, 0.0) for r in runs]), 2) for lab in labels}}
