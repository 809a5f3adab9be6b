"""Section 1b: where the injector spends its time — import times by package, the cost of importing each module
the hook avoids, an in-process phase timer, and process-level overheads."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

from benchmarks.common.processes import base_env, injector_args, run_proc
from benchmarks.common.stats import median
from benchmarks.common.tables import table
from benchmarks.common.timer import repeat_ms
from benchmarks.suite.constants import PY
from benchmarks.suite.overheads import process_overheads
from benchmarks.suite.phase_table import phase_table
from benchmarks.suite.report import Report

# The hook path (memory_apps.session.injection + the recipe resolver) against what it avoids (pydantic models, the container).
MODULES = ("numpy", "pydantic", "dependency_injector.containers", "memory_core.entries.models", "memory_apps.config",
           "memory_apps.wiring.container", "memory_apps.session.injection", "memory_apps.wiring.resolver", "onnxruntime", "tokenizers")
PASS = "(python -c pass)"


def section_breakdown(report: Report, workdir: Path, sizes: Sequence[int]) -> dict:
    """Run section 1b on section 1's database at 10,000 entries (else its smallest); saved under '1b_breakdown'."""
    report.out("\n### 1b. Where the injector spends its time\n")
    env = base_env(workdir / "home", workdir)
    results: dict = {}
    size = 10_000 if 10_000 in sizes else sizes[0]
    base = workdir / f"s1-{size}"
    if not (base / "store" / "memory.db").exists():
        return results
    results["importtime_ms"] = _import_times(report, env, base, size)
    costs = {PASS: median(repeat_ms(lambda: run_proc([PY, "-c", "pass"], env, base), 5))}
    for module in MODULES:
        costs[module] = median(repeat_ms(lambda: run_proc([PY, "-c", f"import {module}"], env, base), 5))
    floor_ms = costs[PASS]
    report.out("\nFresh-process import cost (`python -c 'import X'` minus `python -c pass`, median of 5; each "
               "includes what X imports):\n")
    report.out(table(["module", "ms"], [(m, round(v - floor_ms, 1) if m != PASS else round(v, 1))
                                        for m, v in costs.items()], right=(1,)))
    results["import_cost_ms"] = {m: round(v - floor_ms, 1) for m, v in costs.items() if m != PASS}
    results["python_pass_ms"] = round(floor_ms, 1)
    results["phases"] = phase_table(report, env, base, size)
    results["size"] = size
    results["process_overheads_ab"] = process_overheads(report, env, workdir, size, max(sizes))
    report.save("1b_breakdown", results)
    return results


def _import_times(report: Report, env: dict, base: Path, size: int) -> dict:
    """`-X importtime` of both injector paths, summed per top-level package (median of 3)."""
    imports: dict[str, dict[str, float]] = {}
    for name, project in (("keyword", base / "keyword-project"), ("vector_local", base / "vector-project")):
        samples = []
        for _ in range(3):
            _, done = run_proc([PY, "-X", "importtime", "-m", "memory_apps.injector",
                                *injector_args(project, base / "store")], env, base)
            samples.append(_import_profile(done.stderr))
        imports[name] = {pkg: round(median([s.get(pkg, 0.0) for s in samples]), 1)
                         for pkg in set().union(*samples)}
    top = sorted(set(imports["keyword"]) | set(imports["vector_local"]),
                 key=lambda p: -max(imports["keyword"].get(p, 0), imports["vector_local"].get(p, 0)))
    shown = [p for p in top if p != "TOTAL"][:14]
    report.out(f"`python -X importtime -m memory_apps.injector` at {size:,} entries: import time (ms, sum of self "
               "times per top-level package, median of 3). The model's onnxruntime/tokenizers are imported "
               "lazily inside the model load, so they show up here only on the local path.\n")
    report.out(table(["package", "(a) keyword", "(b) vector local"],
                     [(p, imports["keyword"].get(p, 0.0), imports["vector_local"].get(p, 0.0)) for p in shown]
                     + [("**all imports**", imports["keyword"].get("TOTAL", 0.0),
                         imports["vector_local"].get("TOTAL", 0.0))], right=(1, 2)))
    return imports


def _import_profile(stderr: str) -> dict[str, float]:
    """Sum `-X importtime` self times (µs) per top-level package, in ms; 'TOTAL' is the sum of all."""
    per: dict[str, float] = {}
    total = 0.0
    for line in stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line)
        if not match:
            continue
        self_us = int(match.group(1))
        package = match.group(4).split(".")[0]
        per[package] = per.get(package, 0.0) + self_us / 1000
        total += self_us / 1000
    per["TOTAL"] = total
    return per
