"""`python -m benchmarks anchors`: what checking learnings against the code they cite adds to a session start
(issue 24: at most 10% at 10k entries whose references cover 1,000 files).

Run from the repository root:

    .venv/bin/python -m benchmarks anchors [--entries 10000] [--files 1000] [--rounds 15] [--smoke] [--out PATH]

A git repository of generated Python modules is the project; 10k synthetic learnings cite one to three of its
files (a whole file, a line or a function). Two global stores hold the same rows: one without anchors (the
baseline), one with the anchors taken in the repository, which then sees a few days of work (2% of the files
renamed, 2% deleted, 5% edited, committed). Each round runs the session start as the hook does (`python -m
memory_apps.injector`, keyword ranking: no model, so the check's share is the largest it can be) three ways, in
a rotating order: the baseline; with anchors and no anchor cache (`cold`: the cited files are read and hashed, git
asked where a gone file went); with anchors and the cache the previous run left (`warm`). Medians of the wall time
from spawn to exit; the ratios to the baseline against the target 1.10; the machine's load while it ran.
Writes benchmarks/results/anchors.json (or --out).
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

from benchmarks.common.machine import busy_seconds, others_cores
from benchmarks.common.paths import RESULTS, shown
from benchmarks.common.processes import base_env, check, injector, log, run_proc
from benchmarks.common.stats import median, ratio, summary, verdict
from benchmarks.common.tables import table

TARGET = 1.10
VARIANTS = ("baseline", "cold", "warm")
CHECK_LINE = "- Code check: "


def parse_args(argv: Optional[Sequence[str]], prog: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entries", type=int, default=10_000, help="learnings in each store (default 10000)")
    parser.add_argument("--files", type=int, default=1_000, help="files of the repository they cite (default 1000)")
    parser.add_argument("--rounds", type=int, default=15, help="session starts of each kind (default 15)")
    parser.add_argument("--smoke", action="store_true", help="a tiny run that only shows the benchmark works")
    parser.add_argument("--out", type=Path, default=RESULTS / "anchors.json", help="where the numbers go")
    args = parser.parse_args(argv)
    if args.smoke:
        args.entries, args.files, args.rounds = 300, 40, 2
    return args


def build(work: Path, entries: int, files: int) -> dict:
    """The project repository and the two stores; what was built, and how long it took."""
    from benchmarks.anchors import repo
    from benchmarks.common.fixtures import make_project, synthetic_rows, unit_vectors
    from benchmarks.common.store import LOCAL_SPACE, write_store

    started = time.perf_counter()
    project = make_project(work / "project", {"embedding_provider": "none"})
    paths = repo.write_files(project, files)
    rows = synthetic_rows(entries)
    cited = repo.references(paths, len(rows))
    matrix = unit_vectors(len(rows), LOCAL_SPACE[2], seed=len(rows))
    plain = work / "plain"
    write_store(plain / "memory.db", (row + (matrix[i].tobytes(),) for i, row in enumerate(repo.cited_rows(rows, cited))),
                LOCAL_SPACE, [project])
    anchored = work / "anchored"
    repo.copy_store(plain, anchored)
    anchors = repo.anchor_json(project, cited)
    repo.write_anchors(anchored / "memory.db", [row[0] for row in rows], anchors)
    changed = repo.change_files(project, paths)
    time.sleep(2.1)  # past the anchor cache's settling time: a warm run may keep what it read (see JsonAnchorCache)
    return {"project": project, "stores": {"baseline": plain, "cold": anchored, "warm": anchored},
            "entries": len(rows), "files": files, "references": sum(len(c) for c in cited),
            "cited_files": len({r.split(":")[0].split("#")[0] for c in cited for r in c}), "changed": changed,
            "build_s": round(time.perf_counter() - started, 1)}


def run(world: dict, rounds: int, work: Path) -> dict:
    """Interleaved session starts of each kind: samples (ms) and how many check lines each block held."""
    home, project = work / "home", world["project"]
    home.mkdir(exist_ok=True)
    env = base_env(home, work)
    cache = world["stores"]["cold"] / "anchors"
    samples = {v: [] for v in VARIANTS}
    marks = {v: [] for v in VARIANTS}
    check(run_proc(injector(project, world["stores"]["warm"]), env, project)[1], "warm-up")  # the cache exists
    check(run_proc(injector(project, world["stores"]["baseline"]), env, project)[1], "warm-up")
    load_start, wall_start = busy_seconds(children=True), time.perf_counter()
    load_avg = [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else []
    for n in range(rounds):
        order = VARIANTS[n % 3:] + VARIANTS[:n % 3]  # rotating: no kind always runs after the same one
        for variant in order:
            if variant == "cold":
                shutil.rmtree(cache, ignore_errors=True)
            elif variant == "warm" and not cache.exists():
                check(run_proc(injector(project, world["stores"]["warm"]), env, project)[1], "re-warm")
            ms, done = run_proc(injector(project, world["stores"][variant]), env, project)
            check(done, variant)
            samples[variant].append(ms)
            marks[variant].append(done.stdout.count(CHECK_LINE))
        log(f"round {n + 1}/{rounds}: " + ", ".join(f"{v} {samples[v][-1]:.0f} ms" for v in VARIANTS))
    wall = time.perf_counter() - wall_start
    return {"samples": samples, "marks": marks,
            "load": {"others_cores": others_cores(load_start, wall, children=True), "loadavg_at_start": load_avg,
                     "loadavg_at_end": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else []}}


def report(world: dict, measured: dict, rounds: int) -> dict:
    """The numbers as JSON data."""
    samples = measured["samples"]
    base = median(samples["baseline"])
    results = {v: {**summary(samples[v]), "check_lines_median": median(measured["marks"][v])} for v in VARIANTS}
    ratios = {v: ratio(median(samples[v]), base) for v in ("cold", "warm")}
    return {"setup": {k: world[k] for k in ("entries", "files", "references", "cited_files", "changed", "build_s")},
            "rounds": rounds, "path": "keyword ranking (memory_embedding_provider: none), limit 20",
            "results": results, "ratio_to_baseline": ratios, "target": TARGET,
            "verdict": {v: verdict(r, TARGET) for v, r in ratios.items()}, "load": measured["load"]}


def print_report(numbers: dict) -> None:
    setup = numbers["setup"]
    print("# The anchor check in a session start (issue 24)\n")
    print(f"{setup['entries']} learnings citing {setup['cited_files']} of {setup['files']} files "
          f"({setup['references']} references); then {setup['changed']['renamed']} renamed, "
          f"{setup['changed']['deleted']} deleted, {setup['changed']['edited']} edited. "
          f"{numbers['rounds']} interleaved rounds, {numbers['path']}.\n")
    rows = [(v, r["median_ms"], r["min_ms"], r["max_ms"], r["check_lines_median"],
             numbers["ratio_to_baseline"].get(v, 1.0), numbers["verdict"].get(v, "")) for v, r in numbers["results"].items()]
    print(table(["session start", "median ms", "min ms", "max ms", "check lines", "ratio", f"≤ {TARGET}"], rows,
                right=[1, 2, 3, 4, 5]))
    load = numbers["load"]
    print(f"\nOther processes kept {load['others_cores']} cores busy on average; load average "
          f"{' / '.join(map(str, load['loadavg_at_start']))} at the start, "
          f"{' / '.join(map(str, load['loadavg_at_end']))} at the end.")


def main(argv: Optional[Sequence[str]] = None, prog: str = "python -m benchmarks anchors") -> int:
    args = parse_args(argv, prog)
    with tempfile.TemporaryDirectory(prefix="bench-anchors-") as tmp:
        work = Path(tmp)
        log(f"building {args.entries} entries citing {args.files} files")
        world = build(work, args.entries, args.files)
        log(f"built in {world['build_s']} s; measuring {args.rounds} rounds")
        numbers = report(world, run(world, args.rounds, work), args.rounds)
    from benchmarks.suite.machine import machine

    numbers = {"machine": machine(), **numbers}
    print_report(numbers)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(numbers, indent=2) + "\n", encoding="utf-8")
    print(f"\nNumbers: {shown(args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
