"""`python -m benchmarks relevance`: recall@20, nDCG@10 and MRR per method on sets of different character.

Run from the repository root:  .venv/bin/python -m benchmarks relevance [--sets a,b] [--out PATH]

Each set is stored in a temporary SQLite store exactly as the product stores it (local keyword tier, the bundled
all-MiniLM-L6-v2 int8 model); signals come from the product's RetrieveAndRank; every method ranks the same
signals. A set with prompts nothing answers (`prompts`) also gets the scores and raw signals of answerable
against unanswerable prompts, what an absolute relevance floor would be calibrated on (issue 23), saved under
"calibration", and that floor cross-validated over its prompts and applied to the other sets ("out_of_sample",
floor.py); and every judged prompt file pooled, the floor refitted on them with nested cross-validation
("calibration.pooled", refit.py). Not part of the test suite: it measures, it does not assert.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from statistics import mean
from typing import Optional, Sequence

from benchmarks.common.paths import RESULTS as RESULTS_DIR
from benchmarks.common.paths import shown
from benchmarks.relevance.calibration import calibrate, calibration_tables
from benchmarks.relevance.floor import measure_floor
from benchmarks.relevance.floor_features import TermWeights, query_candidates
from benchmarks.relevance.floor_report import floor_tables
from benchmarks.relevance.pooled import pooled_prompts, sources
from benchmarks.relevance.refit import refit
from benchmarks.relevance.refit_report import refit_tables
from benchmarks.relevance.corpus_store import FixedClock, build_store
from benchmarks.relevance.methods import METHODS, PRODUCT, SINGLE_SIGNALS, Scorer
from benchmarks.relevance.metrics import score_ranking
from benchmarks.relevance.report import headline, method_table
from benchmarks.relevance.sets import sets_or_usage_error
from benchmarks.relevance.signals import SignalSource

RESULTS = RESULTS_DIR / "relevance.json"


def prepare(relevance_set, workdir: str):
    """Store the set as the product does; return the Scorer, per judged query its Signals and judgements, the
    same for the queries nothing answers (with their keys), and the store (open: the product's `relevance`
    ranking reads cited files from it; the caller closes it)."""
    return open_built(relevance_set, build_store(relevance_set, workdir))


def open_built(relevance_set, built):
    """`prepare` on a store built already (`build_store`): the same four things."""
    from memory_apps.config import MemoryConfig
    from memory_apps.wiring.container import build_container
    from memory_core.ranking.scoring import Weights
    from memory_core.usecases.retrieve import RetrieveAndRank

    container = build_container(MemoryConfig(embedding_provider="local"), built.store_dir)
    store = container.store()
    plan = container.embedding_plan(want_target=False)
    index = container.vector_index(dimensions=plan.query.dimensions)

    def ranking(kind: str) -> RetrieveAndRank:
        return RetrieveAndRank(store=store, clock=FixedClock(built.built_at), weights=Weights(), keyword_index=store,
                               embedder=plan.query, vector_index=index, ranking=kind, references=store)

    source = SignalSource(ranking("spec"), store, plan.query)
    position = {i: n for n, i in enumerate(source.order)}
    scorer = Scorer(ranking("spec"), ranking("relevance"), store.cited_files(),
                    lambda ids: source.matrix[[position[i] for i in ids]], built.built_at)

    def judged(query):
        hidden = frozenset(built.ids[k] for k in query.hidden)
        relevant = {built.ids[k]: grade for k, grade in query.relevant.items()}
        return source.signals(query.session, hidden), relevant

    queries = [judged(q) for q in relevance_set.queries]
    nothing = [(q.key, *judged(q)) for q in relevance_set.unanswerable]
    return scorer, queries, nothing, store


def set_signals(relevance_set, workdir: str):
    """The Scorer, per judged query its Signals and judgements, and the open store (see `prepare`)."""
    scorer, queries, _, store = prepare(relevance_set, workdir)
    return scorer, queries, store


def rank_all(scorer, queries, method) -> dict:
    """Mean metrics of one method over the queries."""
    rows = []
    for signals, relevant in queries:
        scores = method(signals, scorer)
        rows.append(score_ranking(sorted(signals.ids, key=lambda i: (-scores.get(i, 0.0), i)), relevant))
    return {metric: round(mean(r[metric] for r in rows), 3) for metric in rows[0]}


def evaluate_set(relevance_set, workdir: str) -> tuple[dict, Optional[dict], list]:
    """Mean metrics per method over the set's judged queries; for a set with queries nothing answers, also
    what a relevance floor would be calibrated on (answerable next to unanswerable); and every query's
    candidates with their raw per-entry features (for the floor measured across sets)."""
    scorer, queries, nothing, store = prepare(relevance_set, workdir)
    try:
        metrics = {name: rank_all(scorer, queries, method) for name, method in METHODS.items()}
        weights = TermWeights(store, len(relevance_set.drafts))
        pairs = [(q, s, relevant) for q, (s, relevant) in zip(relevance_set.queries, queries)]
        pairs += [(q, s, relevant) for q, (_, s, relevant) in zip(relevance_set.unanswerable, nothing)]
        candidates = [query_candidates(q.key, s, relevant, scorer, weights, q.session) for q, s, relevant in pairs]
        if not nothing:
            return metrics, None, candidates
        named = [(q.key, *pair) for q, pair in zip(relevance_set.queries, queries)] + nothing
        return metrics, calibrate(scorer, named, METHODS), candidates
    finally:
        store.close()


def pooled_refit() -> dict:
    """Every judged prompt file through the product's search on one store, and the floor refitted on them."""
    pooled = pooled_prompts()
    files = {name: list(pooled.source.values()).count(name) for name in sources(pooled)}
    return {"files": files, "refit": refit(pooled)}


def main(argv: Optional[Sequence[str]] = None, prog: Optional[str] = None) -> int:
    """Build every set's store, rank, print the tables, write the JSON."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("--sets", help="comma-separated set names (default: all)")
    parser.add_argument("--out", default=str(RESULTS), help=f"JSON results (default {shown(RESULTS)})")
    args = parser.parse_args(argv)
    os.environ.setdefault("IFLOW_MEMORY_BACKGROUND", "0")
    sets = sets_or_usage_error(parser, args.sets)
    started = time.monotonic()
    results, about, floors, candidates = {}, {}, {}, {}
    with tempfile.TemporaryDirectory(prefix="iflow-relevance-") as workdir:
        for relevance_set in sets:
            results[relevance_set.name], floor, candidates[relevance_set.name] = evaluate_set(relevance_set,
                                                                                              workdir)
            about[relevance_set.name] = {"about": relevance_set.about, "entries": len(relevance_set.drafts),
                                         "queries": len(relevance_set.queries)}
            if floor is not None:
                floors[relevance_set.name] = floor
                about[relevance_set.name]["unanswerable"] = len(relevance_set.unanswerable)
            print(f"{relevance_set.name}: {len(relevance_set.queries)} queries over "
                  f"{len(relevance_set.drafts)} entries", file=sys.stderr)
    print("# Relevance suite\n")
    print(headline(results, SINGLE_SIGNALS, PRODUCT))
    for name, methods in results.items():
        print(f"\n## {name} ({about[name]['entries']} entries, {about[name]['queries']} queries)\n")
        print(f"{about[name]['about']}\n")
        print(method_table(methods))
        if name in floors:
            print(f"\n### {name}: answerable against unanswerable (for a relevance floor)\n")
            print(calibration_tables(floors[name]))
    if "prompts" in candidates:
        others = {name: found for name, found in candidates.items() if name != "prompts"}
        floors["prompts"]["out_of_sample"] = measure_floor(candidates["prompts"], others)
        print("\n### prompts: the relevance floor, out of sample\n")
        print(floor_tables(floors["prompts"]["out_of_sample"]))
        floors["pooled"] = pooled_refit()
        print("\n### every prompt file pooled: the relevance floor refitted, out of sample\n")
        print(refit_tables(floors["pooled"]["refit"], floors["pooled"]["files"]))
    elapsed = time.monotonic() - started
    print(f"\nTotal {elapsed:.0f} s.")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    # `search-floor` writes its own key into this file (with its own "when"): a run of this section keeps it
    kept = json.loads(out.read_text(encoding="utf-8")) if out.is_file() else {}
    out.write_text(json.dumps({"sets": about, "results": results, "calibration": floors,
                               "seconds": round(elapsed, 1),
                               "when": datetime.now(timezone.utc).isoformat(timespec="seconds")}
                              | ({"search_floor": kept["search_floor"]} if "search_floor" in kept else {}), indent=1),
                   encoding="utf-8")
    return 0
