"""Tables for humans (rich, imported only when one is printed), JSON for scripts, and failures on stderr."""

from __future__ import annotations

import json
import re
import sys
from datetime import datetime
from typing import Any, Sequence

from memory_core.safety.inert import one_line, strip_controls
from memory_core.entries.records import Entry

# Characters json.dumps leaves raw with ensure_ascii=False that a terminal acts on (DEL, C1 controls, bidi
# controls, line separators); they can only occur inside JSON strings, so escaping them keeps the data intact.
_TERMINAL_ACTIVE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

JSON_HELP = "one JSON document on stdout for scripts (errors stay on stderr, same exit status)"
EXIT_INVALID, EXIT_DATABASE = 1, 2
"""Exit statuses: invalid input or not found; a database error."""
PLAIN_WIDTH = 100_000  # piped output is never wrapped or cut to a terminal's width


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], widths: Sequence[int] = (),
          right: Sequence[int] = (), whole: Sequence[int] = ()) -> str:
    """A table of inert one-line cells, cut to the given widths (0 = no limit); `right` columns right-aligned;
    `whole` columns never cut, however narrow the terminal (ids: what the next command needs)."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    grid = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1, 0, 0), header_style="bold")
    limits = list(widths) + [0] * (len(headers) - len(widths))
    cells = [[Text(one_line(str(cell))) for cell in row] for row in rows]
    natural = [max([len(header)] + [row[i].cell_len for row in cells]) for i, header in enumerate(headers)]
    natural = [min(width, limit) if limit else width for width, limit in zip(natural, limits)]
    room = _console().width - 2 * (len(headers) - 1)  # a column's padding and the rule's gap between columns
    # Cut here rather than let rich shrink every column evenly: a `whole` column keeps its width.
    fitted = fit_widths(natural, whole, room)
    for index, header in enumerate(headers):
        width = fitted[index]
        grid.add_column(Text(header), max_width=width, min_width=width if index in whole else None,
                        no_wrap=True, overflow="ellipsis", justify="right" if index in right else "left")
    for row in cells:
        grid.add_row(*row)
    return render(grid)


def fit_widths(natural: Sequence[int], whole: Sequence[int], room: int) -> list[int]:
    """Column widths within `room`: the `whole` columns keep theirs, the others give up space widest first (one
    character each at least)."""
    widths = list(natural)
    excess = sum(widths) - room
    cuttable = [i for i in range(len(widths)) if i not in whole]
    while excess > 0:
        widest = max(cuttable, key=widths.__getitem__, default=None)
        if widest is None or widths[widest] <= 1:
            break
        widths[widest] -= 1
        excess -= 1
    return widths


def fields(data: dict[str, Any], multi_line: Sequence[str] = ()) -> str:
    """`key  value` lines without controls: the `multi_line` fields keep their lines, indented under their
    value; other values and list items go on one line."""
    from rich.table import Table
    from rich.text import Text

    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    for key, value in data.items():
        if isinstance(value, list):
            text = ", ".join(one_line(str(v)) for v in value) or "-"
        elif value in (None, ""):
            text = "-"
        else:
            text = strip_controls(str(value)).strip("\n") if key in multi_line else one_line(str(value))
        grid.add_row(Text(key), Text(text))
    indent = " " * (max((len(key) for key in data), default=0) + 2)
    return "\n".join(line or indent for line in render(grid).split("\n"))  # a blank value line stays indented


def render(renderable: Any) -> str:
    """Text of a rich renderable for stdout: styled and fitted to the terminal on one, plain and unwrapped when
    piped (no ANSI codes, whatever FORCE_COLOR says), without trailing blanks."""
    console = _console()
    with console.capture() as captured:
        console.print(renderable)
    return "\n".join(line.rstrip() for line in captured.get().splitlines())


def _console() -> Any:
    """A rich console on stdout: the terminal's width on one, no width limit when piped."""
    from rich.console import Console

    terminal = is_terminal(sys.stdout)
    return Console(file=sys.stdout, force_terminal=terminal, width=None if terminal else PLAIN_WIDTH,
                   highlight=False, markup=False, emoji=False)


def is_terminal(stream: Any) -> bool:
    """True when the stream is a terminal (False for a pipe, a file, or a closed or replaced stream)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False


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


def count_of(number: int, noun: str, plural: str = "") -> str:
    """`1 entry`, `2 entries`: the number with its noun in the right number (`plural` when not noun + s)."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def fail(message: str, status: int = EXIT_INVALID) -> int:
    """Say why a command failed (`iflow-memory: ...` on stderr; stdout stays for results, --json too); returns
    `status`."""
    print(f"iflow-memory: {message}", file=sys.stderr)
    return status


def database_failed(exc: BaseException) -> int:
    """`fail` for a database error: exit status 2."""
    return fail(f"database error: {exc}", EXIT_DATABASE)
