"""`python -m benchmarks semantic`: what the local embedding model adds over keyword + prominence ranking.

Run from the repository root:  .venv/bin/python -m benchmarks semantic [--limit 10]

The bank (benchmarks/data/semantic_vs_keyword.json, 60 entries) holds 12 entries for each of 4 session
contexts, written so that they share no word with their context (paraphrases and synonyms only; checked
below), plus 12 distractors, several of which do share words with a context. The real pipeline runs
in-process on a temporary database: markdown import (ImportKnowledgeBank from the container), embedding
(embed_everything, the local all-MiniLM-L6-v2 int8 model), then RetrieveAndRank built by the container's `retrieval`
once with `memory_embedding_provider: none` (keyword + prominence) and once with `local`.
Reported per context: hits among the selected entries (the injector's category-balanced selection with
--limit entries), recall@limit and precision@limit of the relevant set, and for reference the hits of the
model alone (weights 1/0/0). The test suite runs it once (a smoke test), checking only that it reports.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter
from typing import Optional, Sequence

from benchmarks.common.bank import BankEntry, write_bank
from benchmarks.common.paths import DATA as DATA_DIR
from memory_apps.upkeep.embedding_jobs import embed_everything
from memory_apps.config import MemoryConfig
from memory_apps.wiring.container import build_container
from memory_core.ports.context_source import ProjectContext
from memory_core.ranking.context_query import compose_context_query
from memory_core.ranking.fts_query import sanitise_fts_query

DATA = str(DATA_DIR / "semantic_vs_keyword.json")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def load(path: str) -> dict:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def context_query(context: dict) -> str:
    """The query the injector would compose for this active feature (no changed files)."""
    return compose_context_query(ProjectContext(feature_slug=context["slug"],
                                                feature_description=context["description"],
                                                phase=context["phase"]))


def shared_words(query: str, entry: dict) -> set[str]:
    """Words the FTS5 query for `query` would match in the entry's text (should be none)."""
    terms = set(sanitise_fts_query(query).split(" OR "))
    text = f"{entry['name']} {entry['description']}".lower()
    return terms & set(_WORD.findall(text))


def check_bank(data: dict) -> None:
    """Fail loudly if a relevant entry shares a searchable word with its context."""
    problems = []
    for context in data["contexts"]:
        query = context_query(context)
        for entry in data["entries"]:
            if entry["topic"] == context["topic"]:
                overlap = shared_words(query, entry)
                if overlap:
                    problems.append(f"{context['slug']}: '{entry['name']}' shares {sorted(overlap)}")
    names = [e["name"] for e in data["entries"]]
    if len(set(names)) != len(names):
        problems.append("entry names are not unique")
    if problems:
        sys.exit("benchmark bank is invalid:\n  " + "\n  ".join(problems))


def bank_entries(entries: list[dict]) -> list[BankEntry]:
    """The entries as knowledge-bank blocks (observation counts 1-3 by position in their category, the same
    spread for every topic)."""
    positions: Counter = Counter()
    blocks = []
    for entry in entries:
        blocks.append(BankEntry(entry["category"], entry["name"], entry["description"],
                                positions[entry["category"]] % 3 + 1, "medium"))
        positions[entry["category"]] += 1
    return blocks


RANKINGS = {
    "none": MemoryConfig(embedding_provider="none"),    # keyword + prominence (default weights)
    "local": MemoryConfig(embedding_provider="local"),  # vector + keyword + prominence (default weights)
    "vector": MemoryConfig(embedding_provider="local", vector_weight=1.0, keyword_weight=0.0,
                           prominence_weight=0.0),      # the model alone, for reference
}


def rank(store_dir: str, settings: MemoryConfig, query: str, limit: int):
    """RetrieveAndRank exactly as the injector wires it, for one settings file."""
    container = build_container(settings, store_dir)
    result = container.retrieval().run(query, limit)
    container.store().close()
    return result


def main(argv: Optional[Sequence[str]] = None, prog: Optional[str] = None) -> int:
    """Import and embed the bank, rank every context three ways, print the table."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=10, help="entries selected per context (default 10)")
    parser.add_argument("--data", default=DATA, help="benchmark bank (JSON)")
    args = parser.parse_args(argv)
    os.environ.setdefault("IFLOW_MEMORY_BACKGROUND", "0")
    started = time.monotonic()

    data = load(args.data)
    check_bank(data)
    with tempfile.TemporaryDirectory(prefix="iflow-bench-") as tmp:
        project = os.path.join(tmp, "bench-project")
        store_dir = os.path.join(tmp, "store")
        write_bank(project, bank_entries(data["entries"]))

        container = build_container(MemoryConfig(embedding_provider="local"), store_dir)
        imported = container.importer().run(project, store_dir)
        embed_started = time.monotonic()
        report, problem = embed_everything(container)
        embed_s = time.monotonic() - embed_started
        if report is None or report.remaining:
            sys.exit(f"embedding failed: {problem or report}")
        container.store().close()

        rows = []
        totals = {"relevant": 0}
        for context in data["contexts"]:
            query = context_query(context)
            relevant = {e["name"] for e in data["entries"] if e["topic"] == context["topic"]}
            row = {"context": context, "relevant": len(relevant)}
            for ranking, settings in RANKINGS.items():
                result = rank(store_dir, settings, query, args.limit)
                if settings.embedding_provider == "local" and not result.vector.ran:
                    sys.exit(f"the local model did not run: {result.vector.reason}")
                names = [r.entry.name for r in result.selected]
                hits = sum(1 for n in names if n in relevant)
                row[ranking] = (hits, len(names), result.keyword.matches)
                totals[ranking] = totals.get(ranking, 0) + hits
                totals[f"selected_{ranking}"] = totals.get(f"selected_{ranking}", 0) + len(names)
            totals["relevant"] += len(relevant)
            rows.append(row)

    k = args.limit
    print(f"Bank: {imported.new} entries imported, {report.embedded} embedded with the local model "
          f"in {embed_s:.1f} s; {len(rows)} contexts; selection limit {k}.\n")
    print(f"| context | relevant | keyword+prominence hits@{k} | local model hits@{k} "
          f"| recall@{k} kw / local | precision@{k} kw / local | model alone hits@{k} | FTS5 matches |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        context = row["context"]
        kw_hits, kw_n, fts = row["none"]
        vec_hits, vec_n, _ = row["local"]
        label = f"{context['slug']}: {context['description']}"
        print(f"| {label} | {row['relevant']} | {kw_hits} | {vec_hits} "
              f"| {kw_hits / row['relevant']:.2f} / {vec_hits / row['relevant']:.2f} "
              f"| {kw_hits / max(kw_n, 1):.2f} / {vec_hits / max(vec_n, 1):.2f} | {row['vector'][0]} | {fts} |")
    relevant = totals["relevant"]
    print(f"| **all** | {relevant} | {totals['none']} | {totals['local']} "
          f"| {totals['none'] / relevant:.2f} / {totals['local'] / relevant:.2f} "
          f"| {totals['none'] / max(totals['selected_none'], 1):.2f} / "
          f"{totals['local'] / max(totals['selected_local'], 1):.2f} | {totals['vector']} | |")
    print(f"\nTotal time {time.monotonic() - started:.1f} s. Hits count relevant entries among the {k} selected "
          "(category-balanced, as injected). 'model alone' ranks with weights vector=1, keyword=0, prominence=0. "
          "FTS5 matches are the entries the context's words found; none of them is relevant by construction.")
    return 0
