"""Tables for humans and JSON for scripts."""

from __future__ import annotations

import json
from typing import Any, Sequence

from memory_core.models import Entry


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], widths: Sequence[int] = ()) -> str:
    """A plain-text table; cells are cut to the given widths (0 = no limit)."""
    cells = [[str(c) for c in row] for row in rows]
    limits = list(widths) + [0] * (len(headers) - len(widths))
    cut = [[c if not limits[i] or len(c) <= limits[i] else c[: limits[i] - 1] + "…" for i, c in enumerate(row)]
           for row in cells]
    sizes = [max([len(h)] + [len(r[i]) for r in cut]) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(sizes[i]) for i, h in enumerate(headers)).rstrip(),
             "  ".join("-" * s for s in sizes)]
    lines += ["  ".join(c.ljust(sizes[i]) for i, c in enumerate(row)).rstrip() for row in cut]
    return "\n".join(lines)


def entry_dict(entry: Entry, score: float | None = None) -> dict[str, Any]:
    """An entry as JSON-ready data."""
    data = entry.model_dump(mode="json")
    if score is not None:
        data["score"] = round(score, 4)
    return data


def dumps(data: Any) -> str:
    """Pretty JSON."""
    return json.dumps(data, indent=2, ensure_ascii=False)
