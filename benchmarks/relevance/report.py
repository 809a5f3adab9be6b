"""Markdown tables for the relevance suite."""

from __future__ import annotations

from typing import Sequence

METRICS = ("recall@20", "ndcg@10", "mrr")


def method_table(methods: dict[str, dict[str, float]]) -> str:
    """One row per method: recall@20, nDCG@10, MRR."""
    lines = ["| method | recall@20 | nDCG@10 | MRR |", "|---|---:|---:|---:|"]
    for name, values in methods.items():
        lines.append(f"| {name} | " + " | ".join(f"{values[m]:.3f}" for m in METRICS) + " |")
    return "\n".join(lines)


def headline(results: dict, singles: Sequence[str], product: Sequence[str]) -> str:
    """Per set: the best single signal next to the product's rankings (recall@20 / nDCG@10 / MRR)."""
    head = "| set | best single signal | " + " | ".join(product) + " |"
    lines = [head, "|---|---|" + "---|" * len(product)]
    for name, methods in results.items():
        best = max(singles, key=lambda m: methods[m]["recall@20"])
        cell = lambda m: " / ".join(f"{methods[m][k]:.2f}" for k in METRICS)  # noqa: E731
        lines.append(f"| {name} | {best}: {cell(best)} | " + " | ".join(cell(m) for m in product) + " |")
    lines.append("\nEach cell: recall@20 / nDCG@10 / MRR (means over the set's queries).")
    return "\n".join(lines)
