"""Markdown tables for the relevance floor refitted on the pooled prompt files."""

from __future__ import annotations

from benchmarks.relevance.floor_fit import TARGETS
from benchmarks.relevance.refit import CHOSEN

SHIPPED = "shipped constants"


def _cell(outcome: dict) -> str:
    return "/".join(f"{100 * outcome[k]:.0f}" for k in TARGETS) + f" ({outcome['injected_per_prompt']:.2f})"


def _held(variant: dict) -> dict:
    return variant["held_out"] if "held_out" in variant else variant["cross_validated"]["held_out"]


def refit_tables(found: dict, files: dict[str, int]) -> str:
    """Per path and variant: held-out shares per file and pooled (nested CV), near-topic silence, then each file
    left out of everything; the choices; the coefficients chosen on every prompt."""
    names = list(files)
    lines = ["Each cell: answerable prompts given a grade-2 entry / injected entries graded ≥1 / unanswerable prompts "
             "given nothing, in %, then injected per prompt. Targets "
             + ", ".join(f"{v:.0%}" for v in TARGETS.values()) + ". Nested: feature set, label, L2, order and floor "
             "chosen on the training folds only (5 folds over all prompts pooled); "
             "`constants before`: those fitted on `calibration` alone (in sample there, out of sample on the later "
             f"files); `{SHIPPED}`: those the product ships now (chosen on every prompt: in sample everywhere).\n",
             "| path | variant | " + " | ".join(f"{n} ({files[n]})" for n in names)
             + " | pooled | near-topic unanswerable silent |",
             "|---|---|" + "---:|" * (len(names) + 2)]
    for path, variants in found.items():
        for name, variant in variants.items():
            held = _held(variant)
            near = held["near_topic_unanswerable"]
            lines.append(f"| {path} | {name} | " + " | ".join(_cell(held[n]) for n in names)
                         + f" | {_cell(held['pooled'])} | {near['silent']:.0%} of {near['prompts']} |")
    lines += ["", "Each file left out of everything (choice and fit made on the other files only):\n",
              "| path | variant | " + " | ".join(names) + " |", "|---|---|" + "---:|" * len(names)]
    for path, variants in found.items():
        for name, variant in variants.items():
            if "leave_file_out" in variant:
                left = variant["leave_file_out"]
                lines.append(f"| {path} | {name} | "
                             + " | ".join(_cell(left[n]) if n in left else "–" for n in names) + " |")
    lines += ["", "Chosen on the training folds (features; label; L2; order; floor), fold by fold:\n",
              "| path | variant | folds |", "|---|---|---|"]
    for path, variants in found.items():
        for name, variant in variants.items():
            if "cross_validated" in variant:
                folds = "<br>".join(f"{'+'.join(f['features'])}; {f['label']}; {f['ridge']}; {f['order']}; "
                                    f"{f['floor']:.2f}" for f in variant["cross_validated"]["folds"])
                lines.append(f"| {path} | {name} | {folds} |")
    lines += ["", f"Chosen on every prompt (the product ships `{CHOSEN}`): P(relevant) = sigmoid(bias + Σ w·x).\n",
              "| path | variant | features | label | L2 | order | bias | weights | floor | in sample, pooled |",
              "|---|---|---|---|---:|---|---:|---|---:|---:|"]
    for path, variants in found.items():
        for name, variant in variants.items():
            c = variant.get("chosen_on_all")
            if c:
                weights = ", ".join(f"{f} {w:+.4g}" for f, w in zip(c["features"], c["weights"]))
                lines.append(f"| {path} | {name} | {'+'.join(c['features'])} | {c['label']} | {c['ridge']} "
                             f"| {c['order']} | {c['bias']:+.4g} | {weights} | {c['floor']:.2f} "
                             f"| {_cell(c['in_sample']['pooled'])} |")
    return "\n".join(lines)
