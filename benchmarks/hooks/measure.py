"""One prompt set through the hook process on each path, next to the calibration's own computation."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional, Sequence

import numpy as np

from benchmarks.hooks.replica import MODELS, replica_choices
from benchmarks.hooks.runner import HookBench
from benchmarks.hooks.shares import hook_shares
from benchmarks.relevance.corpus_store import BuiltStore
from benchmarks.relevance.sets import RelevanceSet

Progress = Callable[[str], None]


def _ms(values: Sequence[float]) -> dict:
    if not values:
        return {}
    median, p95 = np.percentile(np.asarray(values, dtype=float), [50, 95]).tolist()
    return {"median": round(median, 1), "p95": round(p95, 1), "max": round(max(values), 1)}


def missed(rows: Sequence[dict], path: str) -> dict[str, list[str]]:
    """The answerable prompts the hook gave no grade-2 learning, by why: no grade-2 learning among the ranking's
    first candidates, the first one under the floor, or over it but not among the three shown."""
    floor = MODELS[path].hook_floor
    found: dict[str, list[str]] = {"not_among_candidates": [], "under_the_floor": [], "crowded_out": []}
    for r in rows:
        if 2 in r["grades"]:
            continue
        best = r["grade2_candidate"]
        kind = ("not_among_candidates" if best is None else
                "under_the_floor" if best["relevance"] < floor else "crowded_out")
        found[kind].append(r["prompt"])
    return found


def measure_set(relevance_set: RelevanceSet, built: BuiltStore, workdir: Path, paths: Sequence[str],
                progress: Optional[Progress] = None) -> dict:
    """Per path: the hook's shares, the in-process replica's shares on the same prompts, how often the two
    showed the same learnings, the hook process's wall time, and every prompt's row."""
    replica = replica_choices(relevance_set, built, paths)
    prompts = [(q, True) for q in relevance_set.queries] + [(q, False) for q in relevance_set.unanswerable]
    found = {}
    for path in paths:
        bench = HookBench(built.store_dir, workdir / relevance_set.name, path)
        rows = []
        for n, (query, answerable) in enumerate(prompts, start=1):
            grades = {built.ids[k]: g for k, g in query.relevant.items()}
            run = bench.ask(query.session.text or "")
            mine = replica[path][query.key]
            expected = [i for i, _ in mine["shown"]]
            rows.append({"prompt": query.key, "answerable": answerable, "ids": run.ids,
                         "grades": [grades.get(i, 0) for i in run.ids], "semantic": run.semantic, "ms": run.ms,
                         "replica_ids": expected, "replica_relevance": [r for _, r in mine["shown"]],
                         "replica_grades": [grades.get(i, 0) for i in expected], "grade2_candidate": mine["grade2"],
                         "same_as_replica": run.ids == expected, "stderr": run.stderr[-300:]})
            if progress and (n % 10 == 0 or n == len(prompts)):
                progress(f"{relevance_set.name}, {path}: {n}/{len(prompts)} prompts")
        shown_with = {r["semantic"] for r in rows if r["ids"]}
        found[path] = {
            "hook": hook_shares([(r["grades"], r["answerable"]) for r in rows]),
            "replica": hook_shares([(r["replica_grades"], r["answerable"]) for r in rows]),
            "answerable_missed": missed([r for r in rows if r["answerable"]], path),
            "same_as_replica": round(sum(r["same_as_replica"] for r in rows) / len(rows), 3),
            "same_set_as_replica": round(sum(set(r["ids"]) == set(r["replica_ids"]) for r in rows) / len(rows), 3),
            "semantic_states": sorted(shown_with),
            "prompts_with_stderr": sum(bool(r["stderr"]) for r in rows),
            "hook_process_ms": _ms([r["ms"] for r in rows]),
            "per_prompt": rows}
    return found
