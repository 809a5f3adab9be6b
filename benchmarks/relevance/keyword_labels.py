"""`python -m benchmarks keyword-labels`: keyword labels the local extractive tier gives the real knowledge bank
(spec 001 AC5), as a first session's import stores them: every entry through `TieredKeywords` with only the
local tier, nothing supplied.

Run from the project root:

    .venv/bin/python -m benchmarks keyword-labels [--bank DIR] [--out PATH]

Prints a markdown table (entries, labels per entry, share of entries satisfying AC5, stopword/generic labels,
CPU time for the whole bank) and ten sample entries with their labels; writes the same to
benchmarks/results/keyword-labels.json (or --out). The bank is ../shared/fixtures/knowledge-bank/head
unless --bank names another knowledge-bank directory.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Optional, Sequence

from benchmarks.common.paths import chosen_bank
from benchmarks.common.paths import RESULTS as RESULTS_DIR

RESULTS = RESULTS_DIR / "keyword-labels.json"
SAMPLES = 10


def label_bank(bank: Path) -> tuple[list, list[list[str]], float]:
    """The bank's drafts, the labels the local tier gives each, and the CPU milliseconds that took."""
    from memory_adapters.keywords.extractive_keyword_generator import LocalExtractiveKeywordGenerator
    from memory_adapters.markdown.knowledge_bank import MarkdownKnowledgeBankReader
    from memory_core.policies.keyword_tiers import Tier, TieredKeywords
    from memory_core.ranking.legacy import deduplicate

    drafts = [e.to_draft("bank") for e in deduplicate(MarkdownKnowledgeBankReader(warn_unknown=False).read(
        str(bank), "local"))]
    tiers = TieredKeywords([Tier("local", LocalExtractiveKeywordGenerator(), in_process=True)])
    started = time.process_time()
    labels = [tiers.generate(d.name, d.description, d.reasoning, d.category) for d in drafts]
    return drafts, labels, (time.process_time() - started) * 1000


def summary(drafts: list, labels: list[list[str]]) -> dict:
    """Counts a reader checks: labels per entry, AC5 (3-10, 3 grounded, none generic), stopword hits."""
    from memory_adapters.keywords.stopwords import is_stopword
    from memory_core.policies.keyword_tiers import grounded
    from memory_core.entries.keywords import GENERIC_WORDS

    counts = [len(k) for k in labels]
    ac5 = [3 <= len(k) <= 10 and sum(grounded(x, f"{d.description}\n{d.reasoning}") for x in k) >= 3
           and not set(k) & GENERIC_WORDS for d, k in zip(drafts, labels)]
    stop_hits = sorted({x for k in labels for x in k if is_stopword(x) or x in GENERIC_WORDS})
    phrases = sum("-" in x for k in labels for x in k)
    return {"entries": len(drafts), "labels_min": min(counts), "labels_median": statistics.median(counts),
            "labels_max": max(counts), "labels_total": sum(counts), "multi_word_share": round(phrases / sum(counts), 3),
            "ac5_share": round(sum(ac5) / len(ac5), 4), "stopword_or_generic_labels": stop_hits}


def main(argv: Optional[Sequence[str]] = None, prog: Optional[str] = None) -> int:
    """Label the bank, print the table and samples, write the JSON."""
    parser = argparse.ArgumentParser(prog=prog, description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--bank", type=Path, default=None, help="a knowledge-bank directory (default: the real bank)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="JSON results (default %(default)s)")
    args = parser.parse_args(argv)
    bank = chosen_bank(parser, args.bank)
    if bank is None:
        return 0
    drafts, labels, cpu_ms = label_bank(bank)
    if not drafts:
        parser.error(f"--bank {bank}: no entries found")
    stats = summary(drafts, labels)
    stats["bank_cpu_ms"] = round(cpu_ms, 1)
    step = max(1, len(drafts) // SAMPLES)
    samples = [{"name": d.name, "labels": k} for d, k in list(zip(drafts, labels))[::step][:SAMPLES]]
    print(f"## Local extractive keyword labels on the knowledge bank {bank.name}\n")
    print("| entries | labels/entry min | median | max | multi-word share | AC5 share | stopword/generic hits "
          "| bank CPU ms |")
    print("|---|---|---|---|---|---|---|---|")
    print(f"| {stats['entries']} | {stats['labels_min']} | {stats['labels_median']} | {stats['labels_max']} "
          f"| {stats['multi_word_share']:.0%} | {stats['ac5_share']:.1%} "
          f"| {len(stats['stopword_or_generic_labels'])} | {stats['bank_cpu_ms']} |")
    print("\n| entry | labels |\n|---|---|")
    for sample in samples:
        print(f"| {sample['name']} | {', '.join(sample['labels'])} |")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"bank": str(bank), "summary": stats, "samples": samples}, indent=2) + "\n",
                        encoding="utf-8")
    print(f"\nWrote {args.out}")
    return 0
