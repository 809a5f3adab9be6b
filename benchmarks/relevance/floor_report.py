"""Markdown tables for the out-of-sample relevance floor."""

from __future__ import annotations

from benchmarks.relevance.floor_fit import TARGETS

CHOSEN = "any feature set"
SHARES = "| answerable with a grade-2 entry | injected graded ≥1 | unanswerable given nothing | injected per prompt |"


def _shares(outcome: dict) -> str:
    return " | ".join(f"{outcome[k]:.1%}" for k in TARGETS) + f" | {outcome['injected_per_prompt']:.2f} |"


def floor_tables(found: dict) -> str:
    """Held-out shares per path, the choice made on each training split, the final coefficients, the cost."""
    lines = ["The prompt hook (at most 3 a prompt, only entries over the floor), 5 folds over prompts: model, "
             "label, order and floor chosen on four folds, shares on the fifth, pooled over the held-out folds. "
             f"Targets: {', '.join(f'{k} ≥ {v:.0%}' for k, v in TARGETS.items())}.\n",
             "| path | " + SHARES.lstrip("| "), "|---|---:|---:|---:|---:|"]
    for path, kinds in found.items():
        for kind, d in kinds.items():
            lines.append(f"| {path}, {kind}, held out | " + _shares(d["cross_validated"]["held_out"]))
            lines.append(f"| {path}, {kind}, in sample | " + _shares(d["chosen_on_all"]["in_sample"]))
    lines += ["", "| path | fold | chosen on the other folds | floor | held-out " + SHARES.lstrip("| "),
              "|---|---:|---|---:|---:|---:|---:|---:|"]
    for path, kinds in found.items():
        for n, fold in enumerate(kinds[CHOSEN]["cross_validated"]["folds"], start=1):
            lines.append(f"| {path} | {n} | {fold['model']}; {fold['label']}; {fold['order']} order "
                         f"| {fold['floor']:.2f} | " + _shares(fold["held_out"]))
    lines += ["", "Chosen on every prompt (what the product would ship): P(relevant) = sigmoid(bias + Σ w·x).\n",
              "| path | model | label | order | bias | weights | floor |", "|---|---|---|---|---:|---|---:|"]
    for path, kinds in found.items():
        for kind, d in kinds.items():
            c = d["chosen_on_all"]
            weights = ", ".join(f"{f} {w:+.4g}" for f, w in zip(c["features"], c["weights"]))
            lines.append(f"| {path} | {c['model']} | {c['label']} | {c['order']} | {c['bias']:+.4g} | {weights} "
                         f"| {c['floor']:.2f} |")
    columns = [(path, kind) for path, kinds in found.items() for kind in kinds]
    lines += ["", "Those floors on the other sets: recall@3 of the path's first 3 without a floor, then with each "
              "floor (in its order; the share of queries given nothing in brackets).\n",
              "| set | " + " | ".join(f"{p}, no floor" for p in found) + " | "
              + " | ".join(f"{p}: {k}" for p, k in columns) + " |",
              "|---|" + "---:|" * (len(found) + len(columns))]
    for name in next(iter(next(iter(found.values())).values()))["earlier_sets"]:
        bare = [f"{found[p][CHOSEN]['earlier_sets'][name]['recall@3']:.3f}" for p in found]
        cost = [found[p][k]["earlier_sets"][name] for p, k in columns]
        lines.append(f"| {name} | " + " | ".join(bare) + " | "
                     + " | ".join(f"{c['recall@3_floored']:.3f} ({c['nothing_injected']:.0%})" for c in cost) + " |")
    return "\n".join(lines)
