"""Markdown tables, the form every section prints its numbers in."""

from __future__ import annotations

from typing import Iterable, Sequence


def table(headers: Sequence[str], rows: Iterable[Sequence[object]], right: Iterable[int] = ()) -> str:
    """A markdown table; columns listed in `right` are right-aligned."""
    right = set(right)
    cells = [[str(h) for h in headers]] + [[_cell(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(cells[0], widths)) + " |",
             "|" + "|".join(("-" * (w + 1) + ":") if i in right else ("-" * (w + 2))
                            for i, w in enumerate(widths)) + "|"]
    for row in cells[1:]:
        lines.append("| " + " | ".join(c.rjust(w) if i in right else c.ljust(w)
                                        for i, (c, w) in enumerate(zip(row, widths))) + " |")
    return "\n".join(lines)


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.2f}" if abs(value) < 10 else f"{value:.1f}"
    return str(value)
