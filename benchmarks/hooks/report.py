"""Markdown tables for the hook benchmark."""

from __future__ import annotations

from benchmarks.relevance.floor_fit import TARGETS

HEADER = ("| prompt set | path | measured | answerable given a grade-2 | shown graded ≥1 | unanswerable given "
          "nothing | shown per prompt | most to one prompt |")


def _row(name: str, path: str, what: str, s: dict) -> str:
    most = s.get("max_injected")
    return (f"| {name} | {path} | {what} | " + " | ".join(f"{s[k]:.1%}" for k in TARGETS)
            + f" | {s['injected_per_prompt']:.2f} | {'' if most is None else most} |")


def shares_table(sets: dict, calibration: dict) -> str:
    """The three shares per prompt set and path: the hook process, the same computation in process, and the
    calibration's own in-sample and cross-validated numbers (for the set it was fitted on)."""
    lines = ["Targets: " + ", ".join(f"{k} ≥ {v:.0%}" for k, v in TARGETS.items()) + ", never more than 3.\n",
             HEADER, "|---|---|---|---:|---:|---:|---:|---:|"]
    for name, found in sets.items():
        for path, d in found["paths"].items():
            lines.append(_row(name, path, "**hook process**", d["hook"]))
            lines.append(_row(name, path, "calibration's computation, in process", d["replica"]))
            if found.get("calibrated_on") and path in calibration:
                lines.append(_row(name, path, "relevance.json, in sample", calibration[path]["in_sample"]))
                lines.append(_row(name, path, "relevance.json, cross-validated", calibration[path]["held_out"]))
    return "\n".join(lines)


def missed_table(sets: dict) -> str:
    """Why answerable prompts got no grade-2 learning (from the calibration's computation of the ranking)."""
    lines = ["| prompt set | path | not among the ranking's first 10 | first one under the floor "
             "| over the floor, not among the 3 shown |", "|---|---|---|---|---|"]
    for name, found in sets.items():
        for path, d in found["paths"].items():
            m = d["answerable_missed"]
            lines.append(f"| {name} | {path} | " + " | ".join(", ".join(m[k]) or "-" for k in
                                                              ("not_among_candidates", "under_the_floor",
                                                               "crowded_out")) + " |")
    return "\n".join(lines)


def agreement_table(sets: dict) -> str:
    """How often the hook process showed exactly what the in-process computation shows, and its wall time."""
    lines = ["| prompt set | path | prompts | same learnings, same order | same set | semantic state shown "
             "| prompts with stderr | hook process ms (median / p95 / max) |", "|---|---|---:|---:|---:|---|---:|---:|"]
    for name, found in sets.items():
        for path, d in found["paths"].items():
            ms = d["hook_process_ms"]
            lines.append(f"| {name} | {path} | {len(d['per_prompt'])} | {d['same_as_replica']:.1%} "
                         f"| {d['same_set_as_replica']:.1%} | {', '.join(d['semantic_states']) or '-'} "
                         f"| {d['prompts_with_stderr']} | {ms['median']:.0f} / {ms['p95']:.0f} / {ms['max']:.0f} |")
    return "\n".join(lines)


def _listed(ids, grades) -> str:
    return ", ".join(f"{i[:8]}({g})" for i, g in zip(ids, grades)) or "-"


def differences(sets: dict, limit: int = 40) -> str:
    """The prompts where the hook and the in-process computation differ: what each showed, with grades."""
    lines = []
    for name, found in sets.items():
        for path, d in found["paths"].items():
            for r in d["per_prompt"]:
                if not r["same_as_replica"]:
                    lines.append(f"| {name} | {path} | {r['prompt']} | {_listed(r['ids'], r['grades'])} "
                                 f"| {_listed(r['replica_ids'], r['replica_grades'])} |")
    if not lines:
        return "The hook process showed exactly what the in-process computation shows, for every prompt."
    head = ["| prompt set | path | prompt | hook showed (grade) | in process (grade) |", "|---|---|---|---|---|"]
    more = [f"\n({len(lines) - limit} more in the JSON)"] if len(lines) > limit else []
    return "\n".join(head + lines[:limit] + more)
