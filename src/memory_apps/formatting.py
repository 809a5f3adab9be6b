"""Tables for humans and JSON for scripts."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Sequence

from memory_core.records import Entry


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
    data = {key: _json_value(value) for key, value in entry.to_dict().items()}
    if score is not None:
        data["score"] = round(score, 4)
    return data


def _json_value(value: Any) -> Any:
    """Datetimes as ISO 8601 with `Z` for UTC (the form pydantic's JSON mode used before ADR 10)."""
    if isinstance(value, datetime):
        text = value.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    return value


def dumps(data: Any) -> str:
    """Pretty JSON."""
    return json.dumps(data, indent=2, ensure_ascii=False)
