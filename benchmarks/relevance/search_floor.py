"""`python -m benchmarks search-floor`: the floor under which `search` says "no good match" (issue 23).

Run from the repository root:  .venv/bin/python -m benchmarks search-floor [--sets a,b] [--out PATH]

Every relevance set is stored as the product stores it and searched through the product's own
`RetrieveAndRank.search` (the CLI's limit, 10), once with the bundled model and once keywords only. Each relevance
model (absolute_relevance.py: the two over BM25, and the two PostgreSQL's ts_rank_cd gets, measured here on the
same results with the BM25 value unread) scores those results: recall@10 without and with a floor, and the share
of nonsense queries (benchmarks/data/nonsense_queries.json) and of the `prompts` set's unanswerable prompts that
get nothing. The floor chosen per model is the highest under which no earlier set loses more than MAX_LOSS
recall (search_floor_choice.py); the result goes under the "search_floor" key of
benchmarks/results/relevance.json (the rest of that file is kept).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from datetime import datetime, timezone
from dataclasses import replace
from pathlib import Path
from typing import Optional, Sequence

from benchmarks.common.paths import DATA, shown
from benchmarks.relevance.corpus_store import build_store
from benchmarks.relevance.main import RESULTS
from benchmarks.relevance.sets import all_sets, chosen_sets
from benchmarks.relevance.signals import context_query
from benchmarks.relevance.search_floor_choice import PATHS, choose, floor_table

NONSENSE = DATA / "nonsense_queries.json"
LIMIT = 10
"""`iflow-memory search`'s default --limit: recall is measured over what a user sees."""


def nonsense_queries(path: Path = NONSENSE) -> list[str]:
    """The nonsense and off-topic queries."""
    return [item["query"] for item in json.loads(path.read_text(encoding="utf-8"))["queries"]]


def searches(container) -> dict:
    """The product's search use case per search path: with the store's model, and keywords only."""
    plan = container.embedding_plan(want_target=False)
    index = container.vector_index(dimensions=plan.query.dimensions)
    return {"model": container.retrieve(embedder=plan.query, vector_index=index),
            "keywords": container.retrieve(embedder=None, vector_index=None, embedder_problem="keywords only")}


def results_of(search, text: str, hidden: frozenset = frozenset()) -> list[tuple[str, dict]]:
    """(entry id, raw signals) of the first LIMIT results, best first. Entries a query was built from (`hidden`)
    are asked for on top and dropped, so the query still gets LIMIT others."""
    found = search.search(text, LIMIT + len(hidden)).selected
    return [(r.entry.id, dict(r.signals)) for r in found if r.entry.id not in hidden][:LIMIT]


def measure_set(relevance_set, store_dir: str) -> tuple[dict, dict]:
    """Per search path: for each judged query its results' (grade, signals) and how many entries are relevant;
    for the set's unanswerable queries and the nonsense set, each query's results' signals."""
    from memory_apps.config import MemoryConfig
    from memory_apps.wiring.container import build_container

    container = build_container(MemoryConfig(embedding_provider="local"), store_dir)
    ids = {key: draft.entry_id for key, draft in relevance_set.drafts.items()}
    judged, empty = {}, {}
    try:
        for path, search in searches(container).items():
            rows = []
            for q in relevance_set.queries:
                relevant = {ids[k]: g for k, g in q.relevant.items()}
                found = results_of(search, context_query(q.session), frozenset(ids[k] for k in q.hidden))
                rows.append({"results": [(relevant.get(i, 0), s) for i, s in found], "relevant": len(relevant)})
            judged[path] = rows
            empty[path] = {"unanswerable": [[s for _, s in results_of(search, context_query(q.session))]
                                            for q in relevance_set.unanswerable],
                           "nonsense": [[s for _, s in results_of(search, t)] for t in nonsense_queries()]}
    finally:
        container.store().close()
    return judged, empty


def keyword_match_model(judged: dict[str, list[dict]]):
    """KEYWORDS_ONLY's matched-or-not twin: a result no keyword matched keeps KEYWORDS_ONLY's relevance (its bias);
    a matched one gets the share of relevant results among the keyword path's matched results on the `prompts`
    set (add-one smoothed), the set the other models were fitted on."""
    from memory_core.ranking.absolute_relevance import BM25, KEYWORD_MATCH, KEYWORD_MATCHED, KEYWORDS_ONLY

    relevant, matched = 1, 2
    for row in judged.get("prompts") or [row for rows in judged.values() for row in rows]:
        for grade, signals in row["results"]:
            if signals.get(BM25, 0.0) > 0:
                relevant, matched = relevant + (grade > 0), matched + 1
    share = relevant / matched
    weight = math.log(share / (1 - share)) - KEYWORDS_ONLY.bias
    return replace(KEYWORD_MATCHED, weights={KEYWORD_MATCH: round(weight, 4)}, bias=KEYWORDS_ONLY.bias)


def models(judged: dict) -> dict:
    """Per model: which search path's results it reads, the model, and the keyword scale it stands for."""
    from memory_core.ranking.absolute_relevance import (BM25_SCALE, KEYWORDS_ONLY, MEANING_ONLY, TS_RANK_CD_SCALE,
                                                        WITH_MODEL)

    return {"model": ("model", WITH_MODEL, BM25_SCALE), "keywords": ("keywords", KEYWORDS_ONLY, BM25_SCALE),
            "model, ts_rank_cd": ("model", MEANING_ONLY, TS_RANK_CD_SCALE),
            "keywords, ts_rank_cd": ("keywords", keyword_match_model(judged["keywords"]), TS_RANK_CD_SCALE)}


def scored(judged: dict, empty: dict, model, scale: str) -> tuple[dict, dict]:
    """The measured signals as relevances of one model (a keyword score read on `scale`), in choose()'s form."""
    from memory_core.ranking.absolute_relevance import BM25, keyword_signal

    def relevance(signals: dict) -> float:
        return model.relevance({**signals, **keyword_signal(signals.get(BM25, 0.0), scale)})

    rows = {name: [{"results": [(g, relevance(s)) for g, s in row["results"]], "relevant": row["relevant"]}
                   for row in found] for name, found in judged.items()}
    best = lambda queries: [max(map(relevance, found), default=0.0) for found in queries]  # noqa: E731
    return rows, {name: {kind: best(queries) for kind, queries in e.items()} for name, e in empty.items()}


def main(argv: Optional[Sequence[str]] = None, prog: Optional[str] = None) -> int:
    """Build the stores, search every query on both paths, choose the floors, print them, merge the JSON."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("--sets", help="comma-separated set names (default: all)")
    parser.add_argument("--out", default=str(RESULTS), help=f"JSON results, merged (default {shown(RESULTS)})")
    args = parser.parse_args(argv)
    os.environ.setdefault("IFLOW_MEMORY_BACKGROUND", "0")
    sets, unknown = chosen_sets(args.sets)
    if unknown or not sets:
        parser.error(f"--sets: no set named {', '.join(unknown) or repr(args.sets)} here; the sets: "
                     f"{', '.join(s.name for s in all_sets())}")
    started = time.monotonic()
    judged: dict = {path: {} for path in PATHS}
    empty: dict = {path: {} for path in PATHS}
    with tempfile.TemporaryDirectory(prefix="iflow-search-floor-") as workdir:
        built: dict = {}  # sets over the same entries (the real bank's three) share one store
        for relevance_set in sets:
            key = tuple(sorted(relevance_set.drafts))
            if key not in built:
                built[key] = build_store(relevance_set, workdir).store_dir
            found, nothing = measure_set(relevance_set, built[key])
            for path in PATHS:
                judged[path][relevance_set.name] = found[path]
                empty[path][relevance_set.name] = nothing[path]
            print(f"{relevance_set.name}: {len(relevance_set.queries)} queries", file=sys.stderr)
    chosen = {}
    for name, (path, model, scale) in models(judged).items():
        rows, best = scored(judged[path], empty[path], model, scale)
        chosen[name] = choose(rows, best, nonsense_queries(), model.relevance({})) | {
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
