"""`python -m benchmarks near-duplicates`: the near-duplicate threshold (ADR 26), calibrated on the real knowledge
bank with the bundled local model.

Run from the project root:

    .venv/bin/python -m benchmarks near-duplicates [--banks DIR] [--out PATH]

Every pair of distinct learnings of both snapshots of the real bank (../shared/fixtures/knowledge-bank/{v024,head};
one learning in both snapshots, unchanged or edited under the same heading, counts once) is scored the way a write
scores a draft against its neighbours (memory_core/ranking/near_duplicates.py), with vectors from the product's
own embedder. The threshold must clear the closest distinct pair by a margin; the hand-written rewordings of bank
entries (benchmarks/data/paraphrases.json) say how many real repeats it still catches, and the same-topic learnings
there that say something else must not be flagged. The same for the keyword-only rule (no vectors). Writes
benchmarks/results/near_duplicates.json (or --out).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import time
from pathlib import Path
from typing import Optional, Sequence

from benchmarks.common.paths import RESULTS, SHARED, shown
from benchmarks.near_duplicates.corpus import Learning, as_learning, embed, read_paraphrases, read_snapshots

BANKS = SHARED / "fixtures" / "knowledge-bank"
OUT = RESULTS / "near_duplicates.json"
MARGIN = 0.05
"""How far above the closest distinct pair the threshold must be (vectors known)."""
KEYWORD_ONLY_MARGIN = 0.15
"""The same without vectors: wider, because word overlap alone drifts more as a bank grows."""


def cosine(first: Learning, second: Learning) -> Optional[float]:
    """The cosine of two unit vectors (None when either has none)."""
    if first.vector is None or second.vector is None:
        return None
    return math.fsum(a * b for a, b in zip(first.vector, second.vector))


def score(first: Learning, second: Learning, with_vector: bool = True) -> float:
    """The product's near-duplicate score of two learnings."""
    from memory_core.ranking.near_duplicates import pair_score, word_overlap, words

    overlap = word_overlap(words(first.name, first.description), words(second.name, second.description))
    return pair_score(cosine(first, second) if with_vector else None, overlap, first.category == second.category)


def shown_pair(first: Learning, second: Learning, value: float) -> dict:
    """A pair as the results list it."""
    return {"score": round(value, 4), "a": {"category": first.category, "name": first.name, "id": first.entry_id},
            "b": {"category": second.category, "name": second.name, "id": second.entry_id}}


def closest_pairs(bank: Sequence[Learning], with_vector: bool, count: int = 5) -> dict:
    """The closest distinct pairs overall, of one category and across two, and how many pairs were scored."""
    scored = sorted(((score(a, b, with_vector), a, b) for a, b in itertools.combinations(bank, 2)),
                    key=lambda item: -item[0])
    same = [item for item in scored if item[1].category == item[2].category]
    cross = [item for item in scored if item[1].category != item[2].category]
    return {"pairs": len(scored), "closest": [shown_pair(a, b, s) for s, a, b in scored[:count]],
            "closest_same_category": [shown_pair(a, b, s) for s, a, b in same[:count]],
            "closest_cross_category": [shown_pair(a, b, s) for s, a, b in cross[:count]]}


def original(bank: Sequence[Learning], named: dict) -> Learning:
    """The bank learning a paraphrase rewords."""
    for learning in bank:
        if learning.category == named["category"] and learning.name == named["name"]:
            return learning
    raise SystemExit(f"paraphrases.json names no bank entry {named['category']}/{named['name']!r}")


def paraphrase_results(bank: Sequence[Learning], paraphrases: Sequence[tuple[dict, Learning]],
                       different: Sequence[tuple[dict, Learning]], limit: float, with_vector: bool) -> dict:
    """Paraphrases whose original reaches `limit` (and any other entry flagged instead), same-topic learnings
    flagged against anything."""
    caught, rows, wrong = 0, [], 0
    for item, written in paraphrases:
        source = original(bank, item["of"])
        own = score(written, source, with_vector)
        others = [(score(written, x, with_vector), x) for x in bank if x is not source]
        best_other = max(others, key=lambda pair: pair[0])
        caught += own >= limit
        wrong += best_other[0] >= limit
        rows.append({"name": written.name, "of": source.name, "score": round(own, 4),
                     "caught": own >= limit, "best_other": round(best_other[0], 4),
                     "best_other_name": best_other[1].name})
    false_flags = []
    for item, written in different:
        best = max(((score(written, x, with_vector), x) for x in bank), key=lambda pair: pair[0])
        if best[0] >= limit:
            false_flags.append({"name": written.name, "flagged": best[1].name, "score": round(best[0], 4)})
    return {"recall": round(caught / len(paraphrases), 3), "caught": caught, "paraphrases": len(paraphrases),
            "other_entries_flagged": wrong, "false_flags": false_flags, "different": len(different),
            "lowest_caught_score": min((r["score"] for r in rows if r["caught"]), default=None), "rows": rows}


def recommended(closest: float, margin: float) -> float:
    """The closest distinct pair plus the margin, rounded up to two decimals."""
    return math.ceil((closest + margin) * 100 - 1e-9) / 100


def calibrate(banks: Path) -> dict:
    """Score everything with and without vectors; the numbers the report prints."""
    from memory_core.ranking import near_duplicates as rule

    bank, edits = read_snapshots(banks)
    paraphrases, different = read_paraphrases()
    written_p = [(item, as_learning(item)) for item in paraphrases]
    written_d = [(item, as_learning(item)) for item in different]
    started = time.perf_counter()
    space = embed(bank + [x for _, x in written_p] + [x for _, x in written_d] + [x for pair in edits for x in pair])
    embed_s = time.perf_counter() - started
    results: dict = {"banks": str(banks), "embedding": space, "embed_s": round(embed_s, 1),
                     "learnings": len(bank), "edited_in_head": len(edits),
                     "weights": {"vector": rule.VECTOR_WEIGHT, "keyword": rule.KEYWORD_WEIGHT,
                                 "cross_category_penalty": rule.CROSS_CATEGORY_PENALTY}}
    for mode, with_vector, limit, margin in (("vector", True, rule.THRESHOLD, MARGIN),
                                             ("keyword_only", False, rule.KEYWORD_ONLY_THRESHOLD, KEYWORD_ONLY_MARGIN)):
        pairs = closest_pairs(bank, with_vector)
        top = pairs["closest"][0]["score"]
        results[mode] = {
            "threshold": limit, "recommended": recommended(top, margin), "margin": margin,
            "distinct_pairs_flagged": sum(1 for a, b in itertools.combinations(bank, 2)
                                          if score(a, b, with_vector) >= limit),
            **pairs, **paraphrase_results(bank, written_p, written_d, limit, with_vector),
            "edits_flagged": sum(score(a, b, with_vector) >= limit for a, b in edits),
            "edit_scores": [shown_pair(a, b, score(a, b, with_vector)) for a, b in edits],
        }
    return results


def report(results: dict) -> None:
    """Markdown tables of the calibration."""
    print(f"## Near-duplicates on the real bank ({results['learnings']} distinct learnings, "
          f"{results['edited_in_head']} edited between the snapshots; {results['embedding']})\n")
    print("| rule | threshold | recommended | closest distinct pair | same category | across categories "
          "| distinct pairs flagged | paraphrase recall | other entry flagged | false flags | edits flagged |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for mode in ("vector", "keyword_only"):
        r = results[mode]
        print(f"| {mode} | {r['threshold']} | {r['recommended']} | {r['closest'][0]['score']} "
              f"| {r['closest_same_category'][0]['score']} | {r['closest_cross_category'][0]['score']} "
              f"| {r['distinct_pairs_flagged']} of {r['pairs']} | {r['caught']}/{r['paraphrases']} "
              f"| {r['other_entries_flagged']} | {len(r['false_flags'])}/{r['different']} "
              f"| {r['edits_flagged']}/{results['edited_in_head']} |")
    for mode in ("vector", "keyword_only"):
        print(f"\n### Closest distinct pairs ({mode})\n\n| score | a | b |\n|---|---|---|")
        for pair in results[mode]["closest"] + results[mode]["closest_same_category"][:3]:
            print(f"| {pair['score']} | {pair['a']['category']}: {pair['a']['name']} "
                  f"| {pair['b']['category']}: {pair['b']['name']} |")
    missed = [r for r in results["vector"]["rows"] if not r["caught"]]
    print("\n### Paraphrases missed (vector rule)\n\n| score | paraphrase | of |\n|---|---|---|")
    for row in missed:
        print(f"| {row['score']} | {row['name']} | {row['of']} |")


def main(argv: Optional[Sequence[str]] = None, prog: Optional[str] = None) -> int:
    """Calibrate, print, write the JSON."""
    parser = argparse.ArgumentParser(prog=prog, description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--banks", type=Path, default=BANKS,
                        help="a directory holding the snapshots v024/ and head/ (default: the real bank)")
    parser.add_argument("--out", type=Path, default=OUT, help="JSON results (default %(default)s)")
    args = parser.parse_args(argv)
    if not (args.banks / "head").is_dir():
        print(f"Skipped: {args.banks / 'head'} not present (clone with ../shared beside the project).")
        return 0
    results = calibrate(args.banks)
    report(results)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"\nWrote {shown(args.out)}")
    return 0
