"""Tables for humans and JSON for scripts."""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any, Sequence

from memory_core.inert import one_line, strip_controls
from memory_core.records import Entry

# Characters json.dumps leaves raw with ensure_ascii=False that a terminal acts on (DEL, C1 controls, bidi
# controls, line separators); they can only occur inside JSON strings, so escaping them keeps the data intact.
_TERMINAL_ACTIVE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], widths: Sequence[int] = ()) -> str:
    """A plain-text table of inert one-line cells, cut to the given widths (0 = no limit)."""
    cells = [[one_line(str(c)) for c in row] for row in rows]
    limits = list(widths) + [0] * (len(headers) - len(widths))
    cut = [[c if not limits[i] or len(c) <= limits[i] else c[: limits[i] - 1] + "…" for i, c in enumerate(row)]
           for row in cells]
    sizes = [max([len(h)] + [len(r[i]) for r in cut]) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(sizes[i]) for i, h in enumerate(headers)).rstrip(),
             "  ".join("-" * s for s in sizes)]
    lines += ["  ".join(c.ljust(sizes[i]) for i, c in enumerate(row)).rstrip() for row in cut]
    return "\n".join(lines)


def field_lines(data: dict[str, Any], multi_line: Sequence[str] = ()) -> list[str]:
    """`key  value` lines for a terminal, without controls: the `multi_line` fields keep their lines, indented
    under their value; other values and list items go on one line."""
    width = max((len(k) for k in data), default=0)
    lines = []
    for key, value in data.items():
        if isinstance(value, list):
            text = ", ".join(one_line(str(v)) for v in value) or "-"
        elif value in (None, ""):
            text = "-"
        else:
            text = strip_controls(str(value)).strip("\n") if key in multi_line else one_line(str(value))
        lines.append(f"{key.ljust(width)}  " + text.replace("\n", "\n" + " " * (width + 2)))
    return lines


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
    """Pretty JSON, with any character a terminal would act on escaped (ADR 13)."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    return _TERMINAL_ACTIVE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
