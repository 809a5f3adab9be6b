"""What an absolute relevance floor would be calibrated on (issue 23): the scores and raw signals of prompts the
bank answers next to those it does not, and how much of the top 3 is relevant."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from benchmarks.relevance.signals import Signals

CALIBRATED = ("relevance", "spec hybrid")
TOP = 3
RAW = {"best cosine, whole prompt": "cosine", "best cosine, any passage": "passage_cosine",
       "best BM25, whole prompt": "bm25", "best BM25, any passage": "passage_bm25"}
"""Row label -> key of raw_signals(); BM25 is FTS5's -bm25() (higher is better, 0 when no word matches)."""
KEEP = 0.8
"""A floor on one value that keeps this share of answerable prompts (the issue's target) lets how many others by?"""


def raw_signals(s: Signals) -> dict[str, float]:
    """The best raw cosine and BM25 over the visible entries, for the whole prompt and its best passage."""
    best = lambda scores: max(scores.values(), default=0.0)  # noqa: E731
    return {"cosine": best(s.vector), "passage_cosine": max((best(p.vector) for p in s.passages), default=0.0),
            "bm25": best(s.keyword), "passage_bm25": max((best(p.keyword) for p in s.passages), default=0.0),
            "keyword_hits": len(s.keyword)}


def ranked_top(s: Signals, relevant: dict[str, int], scores: dict[str, float]) -> dict:
    """Top-1 and top-3 scores of one ranking, and its top 3: ids, grades, raw cosine and BM25."""
    ranked = sorted(s.ids, key=lambda i: (-scores.get(i, 0.0), i))[:TOP]
    return {"top1": scores.get(ranked[0], 0.0), "top3": scores.get(ranked[-1], 0.0),
            "ids": ranked, "grades": [relevant.get(i, 0) for i in ranked],
            "cosines": [round(s.vector.get(i, 0.0), 4) for i in ranked],
            "bm25s": [round(s.keyword.get(i, 0.0), 4) for i in ranked]}


def spread(values: Sequence[float]) -> dict[str, float]:
    """Median, 10th and 90th percentile (linear interpolation)."""
    p10, median, p90 = np.percentile(np.asarray(values, dtype=float), [10, 50, 90]).tolist()
    return {"median": round(median, 4), "p10": round(p10, 4), "p90": round(p90, 4)}


def separation(answerable: Sequence[float], unanswerable: Sequence[float]) -> float:
    """Share of (answerable, unanswerable) pairs the value orders right, ties half (ROC AUC; 0.5 = no signal)."""
    wins = sum((a > u) + 0.5 * (a == u) for a in answerable for u in unanswerable)
    return round(wins / (len(answerable) * len(unanswerable)), 3)


def calibrate(scorer, prompts: Sequence[tuple[str, Signals, dict[str, int]]], methods: dict) -> dict:
    """Per prompt its raw signals and each calibrated method's top 3; then the distributions and shares."""
    rows = []
    for key, s, relevant in prompts:
        row = {"prompt": key, "answerable": bool(relevant), "raw": raw_signals(s)}
        row.update({m: ranked_top(s, relevant, methods[m](s, scorer)) for m in CALIBRATED})
        rows.append(row)
    groups = {True: [r for r in rows if r["answerable"]], False: [r for r in rows if not r["answerable"]]}
    values = {f"{m}, top-{n}": (lambda r, m=m, k=f"top{n}": r[m][k]) for m in CALIBRATED for n in (1, TOP)}
    values.update({label: (lambda r, k=key: r["raw"][k]) for label, key in RAW.items()})
    scores = {}
    for label, value in values.items():
        yes, no = [value(r) for r in groups[True]], [value(r) for r in groups[False]]
        floor = float(np.percentile(yes, 100 * (1 - KEEP)))
        scores[label] = {"answerable": spread(yes), "unanswerable": spread(no), "auc": separation(yes, no),
                         "floor_keeping_80": round(floor, 4),
                         "unanswerable_passing": round(sum(v >= floor for v in no) / len(no), 3)}
    answerable = groups[True]
    shares = {m: {"grade2_in_top3": round(sum(2 in r[m]["grades"] for r in answerable) / len(answerable), 3),
                  "top3_graded": round(sum(g >= 1 for r in answerable for g in r[m]["grades"])
                                       / (TOP * len(answerable)), 3)} for m in CALIBRATED}
    return {"answerable": len(answerable), "unanswerable": len(groups[False]), "scores": scores,
            "shares": shares, "per_prompt": rows}


def calibration_tables(found: dict) -> str:
    """The distributions (median, p10-p90, AUC) and the top-3 shares as markdown."""
    cell = lambda d: f"{d['median']:.3f} ({d['p10']:.3f}–{d['p90']:.3f})"  # noqa: E731
    lines = [f"Scores of the {found['answerable']} answerable and {found['unanswerable']} unanswerable prompts: "
             "median (p10–p90); AUC = share of (answerable, unanswerable) pairs the value orders right; a floor at "
             "the answerable p20 keeps 80% of answerable prompts and lets the last column's share of unanswerable "
             "ones through.\n",
             "| value | answerable | unanswerable | AUC | floor at answerable p20 | unanswerable passing |",
             "|---|---:|---:|---:|---:|---:|"]
    for label, d in found["scores"].items():
        lines.append(f"| {label} | {cell(d['answerable'])} | {cell(d['unanswerable'])} | {d['auc']:.3f} "
                     f"| {d['floor_keeping_80']:.3f} | {d['unanswerable_passing']:.0%} |")
    lines += ["", "| method | answerable prompts with a grade-2 entry in the top 3 | top-3 results graded ≥1 |",
              "|---|---:|---:|"]
    for method, share in found["shares"].items():
        lines.append(f"| {method} | {share['grade2_in_top3']:.1%} | {share['top3_graded']:.1%} |")
    return "\n".join(lines)
