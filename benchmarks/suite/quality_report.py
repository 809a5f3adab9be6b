"""Section 5's tables: mean recall per context variant and method, then recall per feature."""

from __future__ import annotations

import textwrap

from benchmarks.common.stats import median
from benchmarks.common.tables import table
from benchmarks.suite.constants import LIMIT
from benchmarks.suite.report import Report

RECIPE = """\
    **Context** for feature N = `"feature-NNN: " + "; ".join(names of its first 3 entries in file order)`
    (variant "names only": the same without the `feature-NNN: ` prefix — the prefix's number is also a
    word of the entries' own "Feature #NNN" lines, which FTS5 and the model both see).
    recall@{LIMIT} = share of the feature's entries among the top {LIMIT} of
    `container.retrieval().search(context, {LIMIT})` (score order); "held-out" counts only the entries whose names
    are not in the context; "injected" uses `.run(context, {LIMIT})` (the injector's category-balanced
    selection). Weights (vector/keyword/prominence): keyword-only 0/1/0 with provider none, vector-only 1/0/0,
    hybrid 0.5/0.2/0.3 (default).
    """


def print_quality(report: Report, means: dict, query_ms: dict, per_feature: list[dict], stored: int) -> None:
    """Print the recipe, the mean recalls (`means` keyed 'variant|method'), chance level and the per-feature table."""
    report.out(textwrap.dedent(RECIPE.format(LIMIT=LIMIT)))
    summary_rows = []
    for key, mean in means.items():
        variant, method = key.split("|")
        summary_rows.append((variant, method, mean["search"], mean["held_out"], mean["run"],
                             round(median(query_ms[method]), 1)))
    report.out(table(["context", "method", f"mean recall@{LIMIT}", f"held-out recall@{LIMIT}",
                      f"injected recall@{LIMIT}", "median query ms"], summary_rows, right=(2, 3, 4, 5)))
    report.out(f"\nChance level (20 random entries of {stored}): recall@{LIMIT} = {round(LIMIT / max(stored, 1), 3)}.")
    report.out(f"\nPer feature (context `feature-NNN: + names`, search recall@{LIMIT}):\n")
    detail = []
    for r in per_feature:
        rec = r["recall"]
        detail.append((f"#{r['feature']:03d}", r["entries"],
                       rec["feature-NNN: + names|keyword"]["search"], rec["feature-NNN: + names|vector"]["search"],
                       rec["feature-NNN: + names|hybrid"]["search"], rec["names only|hybrid"]["search"],
                       _short(r["context"], 70)))
    report.out(table(["feature", "entries", "keyword", "vector", "hybrid", "hybrid (names only)", "context"],
                     detail, right=(1, 2, 3, 4, 5)))


def _short(text: str, width: int) -> str:
    text = text.replace("|", "/")
    return text if len(text) <= width else text[: width - 1] + "…"
