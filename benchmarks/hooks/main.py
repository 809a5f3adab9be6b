"""`python -m benchmarks hooks`: the prompt hook's relevance through the real hook process (issue 23).

Run from the repository root:  .venv/bin/python -m benchmarks hooks [--paths full,keyword] [--out PATH]

The relevance suite's `prompts` store is built as that suite builds it (the real bank's head, the local keyword
tier, the bundled model). Then, for every prompt, `iflow-memory hook user-prompt-submit` runs as its own process
(no warm process, a 30 s deadline so the model always answers, a new session and a fresh copy of the store for
each prompt), and the `- id:` lines of what it printed are read back. Per path (with the model; keywords only)
and per prompt set (the prompts the floor was calibrated on; held-out prompts written after it): the issue's
three shares and the most shown to one prompt, next to the calibration's own computation run in this process on
the same store, prompt by prompt, and the numbers benchmarks/results/relevance.json records. The store's dates
are moved to the start of the run, so the hook, which ranks by the real clock, sees the entries as old as the
calibration (at the suite's fixed build time) did. Not part of the test suite: it measures, it does not assert.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional, Sequence

from benchmarks.common.paths import DATA, RESULTS as RESULTS_DIR, shown
from benchmarks.common.processes import log
from benchmarks.hooks.measure import measure_set
from benchmarks.hooks.report import agreement_table, differences, missed_table, shares_table
from benchmarks.hooks.runner import DEADLINE_S, PATH_CONFIG
from benchmarks.relevance.corpus_store import BUILT_AT, build_store
from benchmarks.relevance.sets import PROMPTS, prompts_set

RESULTS = RESULTS_DIR / "hooks.json"
HELD_OUT = DATA / "relevance_prompts_heldout.json"
RELEVANCE = RESULTS_DIR / "relevance.json"
CHOSEN = "any feature set"


def calibration_numbers(path: Path = RELEVANCE) -> dict:
    """The calibration's in-sample and cross-validated shares per path (`calibration.prompts.out_of_sample`)."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))["calibration"]["prompts"]["out_of_sample"]
    except (OSError, ValueError, KeyError):
        return {}
    return {p: {"in_sample": kinds[CHOSEN]["chosen_on_all"]["in_sample"],
                "held_out": kinds[CHOSEN]["cross_validated"]["held_out"]} for p, kinds in found.items()}


def machine_load() -> list[float]:
    """The load average (1, 5, 15 min) now."""
    return [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else []


def main(argv: Optional[Sequence[str]] = None, prog: Optional[str] = None) -> int:
    """Build the store, run the hook for every prompt of both sets on each path, print, write the JSON."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0].split(": ", 1)[1])
    parser.add_argument("--paths", default=",".join(PATH_CONFIG),
                        help=f"comma-separated: {', '.join(PATH_CONFIG)} (default both)")
    parser.add_argument("--held-out", default=str(HELD_OUT),
                        help=f"held-out prompts, same format (default {shown(HELD_OUT)}; '' for none)")
    parser.add_argument("--unshifted", action="store_true",
                        help="date the store as the relevance suite does (BUILT_AT) instead of moving its dates to "
                             "now: the hook, on the real clock, then sees every entry older than the calibration "
                             "did, which reorders the keyword path's candidates a little")
    parser.add_argument("--out", default=str(RESULTS), help=f"JSON results (default {shown(RESULTS)})")
    args = parser.parse_args(argv)
    paths = [p.strip() for p in args.paths.split(",") if p.strip()]
    if not paths or set(paths) - set(PATH_CONFIG):
        parser.error(f"--paths: choose from {', '.join(PATH_CONFIG)}")
    os.environ.setdefault("IFLOW_MEMORY_BACKGROUND", "0")
    calibrated = prompts_set()
    if calibrated is None:
        parser.error("the prompt set needs the real bank (../shared beside the project)")
    sets = {"prompts": (calibrated, True, PROMPTS)}
    if args.held_out:
        held = prompts_set(Path(args.held_out))
        sets["prompts-heldout"] = (replace(held, name="prompts-heldout"), False, Path(args.held_out))
    started, load_at_start = time.monotonic(), machine_load()
    results = {}
    with tempfile.TemporaryDirectory(prefix="iflow-hooks-") as workdir:
        log("building the store (the relevance suite's `prompts` store)")
        built_at = BUILT_AT if args.unshifted else datetime.now(timezone.utc).replace(microsecond=0)
        built = build_store(calibrated, workdir, built_at)
        for name, (relevance_set, on_calibration, source) in sets.items():
            results[name] = {"file": shown(source), "calibrated_on": on_calibration,
                             "answerable": len(relevance_set.queries),
                             "unanswerable": len(relevance_set.unanswerable),
                             "paths": measure_set(relevance_set, built, Path(workdir), paths, log)}
    calibration = calibration_numbers()
    print("# The prompt hook, through the hook process\n")
    print(shares_table(results, calibration))
    print("\n## Answerable prompts given no grade-2 learning, and why\n")
    print(missed_table(results))
    print("\n## The hook process against the calibration's computation in process\n")
    print(agreement_table(results))
    print()
    print(differences(results))
    elapsed = time.monotonic() - started
    print(f"\nTotal {elapsed:.0f} s; load average {load_at_start} at the start, {machine_load()} at the end.")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"sets": results, "calibration": calibration,
                               "hook": {"warm": "off", "deadline_s": float(DEADLINE_S), "paths": PATH_CONFIG},
                               "store_dated": "as the relevance suite (BUILT_AT)" if args.unshifted else
                               "moved to the start of the run: the hook sees the ages the calibration saw",
                               "loadavg_at_start": load_at_start, "loadavg_at_end": machine_load(),
                               "seconds": round(elapsed, 1),
                               "when": datetime.now(timezone.utc).isoformat(timespec="seconds")}, indent=1),
                   encoding="utf-8")
    print(f"Written to {shown(out)}.")
    return 0
