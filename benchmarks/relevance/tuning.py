"""`python -m benchmarks tuning`: leave-one-set-out cross-validation of the `relevance` ranking's weights (ADR 18).

Run from the repository root:  .venv/bin/python -m benchmarks tuning [--sets A,B,...] [--out PATH]

For every set of the relevance suite, the weights are chosen on the *other* sets (the grid below, by mean
recall@20 over those sets, nDCG@10 breaking ties) and reported on the held-out set, next to the shipped
defaults (RelevanceTuning()) and the best single signal. A set's number is never tuned on that set.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
import time
from dataclasses import asdict, replace
from pathlib import Path
from statistics import mean
from typing import Optional, Sequence

from benchmarks.common.paths import RESULTS as RESULTS_DIR
from benchmarks.common.paths import shown
from benchmarks.relevance.main import rank_all, set_signals
from benchmarks.relevance.methods import METHODS, SINGLE_SIGNALS
from benchmarks.relevance.sets import all_sets, chosen_sets
from memory_core.ranking.relevance_fusion import RelevanceTuning

RESULTS = RESULTS_DIR / "tuning.json"
GRID = {"passage_keyword": (0.5, 0.75, 1.0), "passage_best": (0.3, 0.5, 0.7), "whole": (0.25, 0.5, 1.0),
        "keyword": (0.5, 1.0)}


def candidates() -> list[RelevanceTuning]:
    """Every combination of the grid, on top of the defaults."""
    return [replace(RelevanceTuning(), **dict(zip(GRID, values))) for values in itertools.product(*GRID.values())]


def main(argv: Optional[Sequence[str]] = None, prog: Optional[str] = None) -> int:
    """Score every candidate on every set, then choose per held-out set and print the table."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("--sets", help="comma-separated set names, at least two (default: all)")
    parser.add_argument("--out", default=str(RESULTS), help=f"JSON results (default {shown(RESULTS)})")
    args = parser.parse_args(argv)
    sets, unknown = chosen_sets(args.sets)
    if unknown:
        parser.error(f"--sets: no set named {', '.join(unknown)} here; the sets: "
                     f"{', '.join(s.name for s in all_sets())}")
    if len(sets) < 2:
        parser.error(f"--sets: leave-one-set-out needs two sets or more; found {[s.name for s in sets]}")
    started = time.monotonic()
    tunings = candidates()
    table: dict[str, list[dict]] = {}
    single: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="iflow-tuning-") as workdir:
        for relevance_set in sets:
            scorer, queries, store = set_signals(relevance_set, workdir)
            table[relevance_set.name] = [rank_all(scorer, queries, lambda s, sc, t=t: sc.tuned(s, t))
                                         for t in tunings]
            single[relevance_set.name] = max(rank_all(scorer, queries, METHODS[m])["recall@20"]
                                             for m in SINGLE_SIGNALS)
            store.close()
            print(f"{relevance_set.name}: {len(tunings)} candidates", file=sys.stderr)
    names = list(table)
    default = tunings.index(RelevanceTuning()) if RelevanceTuning() in tunings else None
    rows, report = [], {}
    for held in names:
        others = [n for n in names if n != held]
        chosen = max(range(len(tunings)), key=lambda k: (mean(table[n][k]["recall@20"] for n in others),
                                                         mean(table[n][k]["ndcg@10"] for n in others)))
        picked = {name: getattr(tunings[chosen], name) for name in GRID}
        held_out = table[held][chosen]["recall@20"]
        shipped = table[held][default]["recall@20"] if default is not None else None
        report[held] = {"chosen_on_other_sets": picked, "held_out_recall@20": held_out,
                        "defaults_recall@20": shipped, "best_single_signal_recall@20": single[held]}
        rows.append(f"| {held} | {held_out:.3f} | {shipped:.3f} | {single[held]:.3f} | "
                    + ", ".join(f"{k} {v}" for k, v in picked.items()) + " |")
    print("# Leave-one-set-out cross-validation of the relevance weights\n")
    print("| held-out set | recall@20, weights chosen on the other sets | shipped defaults | best single signal "
          "| weights chosen |")
    print("|---|---:|---:|---:|---|")
    print("\n".join(rows))
    print(f"\nDefaults: {asdict(RelevanceTuning())}. {len(tunings)} candidates; "
          f"{time.monotonic() - started:.0f} s.")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"grid": GRID, "held_out": report}, indent=1), encoding="utf-8")
    return 0
