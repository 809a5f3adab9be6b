"""Section 7's concurrent session starts: 3 and 5 injectors spawned at once, each with a new context."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Sequence

from benchmarks.common.fixtures import new_context
from benchmarks.common.processes import injector, path_state, states
from benchmarks.common.stats import median
from benchmarks.common.tables import table
from benchmarks.suite.report import Report

CONCURRENT_LIMIT_S = 2.5


def spawn_all(commands: Sequence[Sequence[str]], env: dict, cwd: Path) -> list[tuple[float, str, str]]:
    """Start every command at once; (wall ms from the common start to its own exit, stdout, stderr) each."""
    started = time.perf_counter()
    processes = [subprocess.Popen(list(c), env=env, cwd=str(cwd), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for c in commands]
    ended: dict[int, float] = {}
    while len(ended) < len(processes):
        for i, process in enumerate(processes):
            if i not in ended and process.poll() is not None:
                ended[i] = (time.perf_counter() - started) * 1000
        time.sleep(0.001)
    return [(ended[i], *p.communicate()) for i, p in enumerate(processes)]


def concurrent(report: Report, env: dict, base: Path, stores: dict, projects: dict, rounds: int) -> dict:
    """`rounds` rounds of 3 and of 5 session starts at once per store size; printed and returned."""
    report.out("\n### Session starts at once (each with a new context: every one needs the model)\n")
    out: dict = {}
    rows = []
    counter = 1000
    for size, store in stores.items():
        for count in (3, 5):
            walls: list[float] = []
            seen: list[str] = []
            for _ in range(rounds):
                counter += 1
                new_context(projects[size], counter)
                for ms, stdout, _ in spawn_all([injector(projects[size], store)] * count, env, base):
                    walls.append(ms)
                    seen.append(path_state(stdout))
            key = f"{size}x{count}"
            out[key] = {"walls_ms": [round(w, 1) for w in walls], "max_ms": round(max(walls), 1),
                        "median_ms": round(median(walls), 1), "paths": states(seen),
                        "all_within_s": CONCURRENT_LIMIT_S, "all_within": max(walls) <= CONCURRENT_LIMIT_S * 1000}
            rows.append((f"{size:,}", count, f"{median(walls):.0f}", f"{max(walls):.0f}", states(seen),
                         "yes" if out[key]["all_within"] else "NO"))
    report.out(table(["entries", "sessions at once", "median ms", "slowest ms", "paths",
                      f"all <= {CONCURRENT_LIMIT_S} s"], rows, right=(1, 2, 3)))
    return out
