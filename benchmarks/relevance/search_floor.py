"""`python -m benchmarks search-floor`: the floor under which `search` says "no good match" (issue 23).

Run from the repository root:  .venv/bin/python -m benchmarks search-floor [--sets a,b] [--postgres] [--out PATH]

Every relevance set is stored as the product stores it and searched through the product's own
`RetrieveAndRank.search` (the CLI's limit, 10), once with the bundled model and once keywords only. Each relevance
model of absolute_relevance.py scores those results (the two over BM25 on SQLite; the two for PostgreSQL's
ts_rank_cd on PostgreSQL with --postgres, else on the SQLite results with BM25 read as matched or not): recall@10
without and with a floor, and the share of nonsense queries (benchmarks/data/nonsense_queries.json) and of the
`prompts` set's unanswerable prompts that get nothing. The floor chosen per model is the highest under which no
earlier set loses more than MAX_LOSS recall (search_floor_choice.py); the result goes under the "search_floor"
key of benchmarks/results/relevance.json (the rest of that file is kept)."""

from __future__ import annotations

import argparse
import json
import math
import os
import tempfile
import time
from datetime import datetime, timezone
from dataclasses import replace
from pathlib import Path
from typing import Optional, Sequence

from benchmarks.common.paths import shown
from benchmarks.relevance.main import RESULTS
from benchmarks.relevance.search_floor_choice import choose, floor_table
from benchmarks.relevance.search_floor_runs import LIMIT, measure_sets, nonsense_queries
from benchmarks.relevance.sets import sets_or_usage_error
from memory_core.ranking.absolute_relevance import (BM25, BM25_SCALE, KEYWORD_MATCH, KEYWORD_MATCHED,
                                                    KEYWORDS_ONLY, MEANING_ONLY, TS_RANK_CD_SCALE, WITH_MODEL,
                                                    keyword_signal)


def keyword_match_model(judged: dict[str, list[dict]]):
    """KEYWORDS_ONLY's matched-or-not twin: a result no keyword matched keeps KEYWORDS_ONLY's relevance (its bias);
    a matched one gets the share of relevant results among the keyword path's matched results on the `prompts`
    set (add-one smoothed), the set the other models were fitted on."""
    relevant, matched = 1, 2
    for row in judged.get("prompts") or [row for rows in judged.values() for row in rows]:
        for grade, signals in row["results"]:
            if signals.get(BM25, signals.get(KEYWORD_MATCH, 0.0)) > 0:
                relevant, matched = relevant + (grade > 0), matched + 1
    share = relevant / matched
    weight = math.log(share / (1 - share)) - KEYWORDS_ONLY.bias
    return replace(KEYWORD_MATCHED, weights={KEYWORD_MATCH: round(weight, 4)}, bias=KEYWORDS_ONLY.bias)


def models(judged: dict) -> dict:
    """Per model: which search path's results it reads, the model, and the keyword scale it stands for."""
    return {"model": ("model", WITH_MODEL, BM25_SCALE), "keywords": ("keywords", KEYWORDS_ONLY, BM25_SCALE),
            "model, ts_rank_cd": ("model", MEANING_ONLY, TS_RANK_CD_SCALE),
            "keywords, ts_rank_cd": ("keywords", keyword_match_model(judged["keywords"]), TS_RANK_CD_SCALE)}


def scored(judged: dict, empty: dict, model, scale: str) -> tuple[dict, dict]:
    """The measured signals as relevances of one model (a keyword score read on `scale`), in choose()'s form."""
    def relevance(signals: dict) -> float:  # BM25 measured on SQLite is read as the scale's model reads it
        return model.relevance({**signals, **(keyword_signal(signals[BM25], scale) if BM25 in signals else {})})

    rows = {name: [{"results": [(g, relevance(s)) for g, s in row["results"]], "relevant": row["relevant"]}
                   for row in found] for name, found in judged.items()}
    best = lambda queries: [max(map(relevance, found), default=0.0) for found in queries]  # noqa: E731
    return rows, {name: {kind: best(queries) for kind, queries in e.items()} for name, e in empty.items()}


def main(argv: Optional[Sequence[str]] = None, prog: Optional[str] = None) -> int:
    """Build the stores, search every query on both paths, choose the floors, print them, merge the JSON."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("--sets", help="comma-separated set names (default: all)")
    parser.add_argument("--out", default=str(RESULTS), help=f"JSON results, merged (default {shown(RESULTS)})")
    parser.add_argument("--postgres", action="store_true",
                        help="also store and search every set on a throwaway PostgreSQL (pgserver), where the "
                             "keyword scores are ts_rank_cd; its two models are then measured there")
    args = parser.parse_args(argv)
    os.environ.setdefault("IFLOW_MEMORY_BACKGROUND", "0")
    sets = sets_or_usage_error(parser, args.sets)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="iflow-search-floor-") as workdir:
        judged, empty = measure_sets(sets, workdir)
        measured = {"sqlite": (judged, empty)}
        if args.postgres:
            measured["postgresql"] = measure_sets(sets, workdir, postgres=True)
    chosen = {}
    for name, (path, model, scale) in models(measured.get("postgresql", measured["sqlite"])[0]).items():
        # the models of another keyword scale are measured where that scale is, when it is here
        backend = "postgresql" if scale != BM25_SCALE and "postgresql" in measured else "sqlite"
        rows, best = scored(measured[backend][0][path], measured[backend][1][path], model, scale)
        chosen[name] = choose(rows, best, nonsense_queries(), model.relevance({})) | {
            "measured_on": backend,
            "relevance_model": {"name": model.name, "weights": dict(model.weights), "bias": model.bias}}
    print("# The search floor\n")
    for name, found in chosen.items():
        print(f"## {name}\n")
        print(floor_table(found) + "\n")
    elapsed = time.monotonic() - started
    print(f"Total {elapsed:.0f} s.")
    out = Path(args.out)
    kept = json.loads(out.read_text(encoding="utf-8")) if out.is_file() else {}
    kept["search_floor"] = {"about": __doc__.split("\n\n", 2)[2].strip(), "limit": LIMIT, "models": chosen,
                            "seconds": round(elapsed, 1),
                            "when": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(kept, indent=1), encoding="utf-8")
    return 0
