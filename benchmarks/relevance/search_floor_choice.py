"""Choosing `search`'s relevance floor from measured results: the highest floor that costs no earlier set more
than MAX_LOSS recall, and what it leaves nonsense queries (see search_floor.py)."""

from __future__ import annotations

import math
from statistics import mean

PATHS = ("model", "keywords")
MAX_LOSS = 0.01
"""The most recall@10 (absolute, a set's mean over its queries) the floor may cost an earlier set."""
NOT_CONSTRAINING = ("prompts",)
"""Issue 23's own prompt set: reported, but the floor is chosen on the sets that came before it."""
SHOWN_FLOORS = (0.01, 0.02, 0.05, 0.1, 0.19)


def recall(rows: list[dict], floor: float) -> float:
    """Mean share of each query's relevant entries among its results whose relevance is at least `floor`."""
    return mean(sum(1 for grade, r in row["results"] if grade > 0 and r >= floor) / row["relevant"]
                for row in rows)


def nothing_share(best: list[float], floor: float) -> float:
    """Share of queries whose best result is under the floor (they get "no good match")."""
    return sum(1 for b in best if b < floor) / len(best) if best else 0.0


def set_limit(rows: list[dict], unfound: float) -> float:
    """The highest floor this set allows: a relevance value held by one of its relevant results, such that
    recall over the results a signal found (relevance above `unfound`) drops by at most MAX_LOSS; infinite when
    no relevant result was found by a signal (nothing to lose)."""
    found = sorted({r for row in rows for grade, r in row["results"] if grade > 0 and r > unfound})
    if not found:
        return math.inf
    baseline = recall(rows, found[0])
    allowed = found[0]
    for value in found[1:]:
        if baseline - recall(rows, value) > MAX_LOSS:
            break
        allowed = value
    return allowed


def choose(judged: dict[str, list[dict]], empty: dict[str, dict], queries: list[str], unfound: float) -> dict:
    """The floor (rounded down to 3 places), each set's recall without and with it, and the shares of nonsense
    and unanswerable queries given nothing, also at a few other floors for comparison. `unfound` is the
    relevance of a result no signal found (the model's bias alone): such a result, there by prominence only, is
    never a good match, so the floor stays above it whatever a set's recall of prominence alone."""
    limits = {name: set_limit(rows, unfound) for name, rows in judged.items()
              if name not in NOT_CONSTRAINING and rows}
    binding = min(limits, key=limits.get) if limits else None  # None: only `prompts` was measured
    bound = limits[binding] if binding is not None else math.inf
    floor = math.floor(bound * 1000) / 1000 if math.isfinite(bound) else 0.5
    floor = max(floor, math.ceil(unfound * 1000 + 1e-9) / 1000)

    def at(value: float) -> dict:
        return {"recall@10": {name: round(recall(rows, value), 3) for name, rows in judged.items() if rows},
                "recall@10_found": {name: round(recall(rows, unfound + 1e-12), 3)
                                    for name, rows in judged.items() if rows},
                "nonsense_nothing": {name: round(nothing_share(e["nonsense"], value), 3) for name, e in empty.items()},
                "unanswerable_nothing": {name: round(nothing_share(e["unanswerable"], value), 3)
                                         for name, e in empty.items() if e["unanswerable"]}}

    passing = {name: [q for q, b in zip(queries, e["nonsense"]) if b >= floor] for name, e in empty.items()}
    return {"floor": floor, "max_loss": MAX_LOSS, "binding_set": binding, "unfound_relevance": round(unfound, 4),
            "set_limits": {name: (round(v, 4) if math.isfinite(v) else None) for name, v in limits.items()},
            "without_floor": at(-math.inf), "with_floor": at(floor),
            "other_floors": {str(value): at(value) for value in SHOWN_FLOORS},
            "nonsense_with_a_match": {name: found for name, found in passing.items() if found}}


def floor_table(found: dict) -> str:
    """Markdown: per set recall@10 without and with the floor, and the share of nonsense given nothing."""
    lines = [f"floor {found['floor']} (highest losing at most {found['max_loss']} recall@10 of the results a signal "
             f"found on any earlier set; bound by {found['binding_set']})\n",
             "| set | recall@10 | found by a signal | with floor | nonsense: nothing | unanswerable: nothing |",
             "|---|---|---|---|---|---|"]
    without, with_floor = found["without_floor"], found["with_floor"]
    for name, value in without["recall@10"].items():
        lines.append(f"| {name} | {value:.3f} | {without['recall@10_found'][name]:.3f} | "
                     f"{with_floor['recall@10'][name]:.3f} | "
                     f"{with_floor['nonsense_nothing'].get(name, 0):.0%} | "
                     f"{with_floor['unanswerable_nothing'].get(name, '-')} |")
    return "\n".join(lines)
