"""How entry text that plain knowledge-bank markdown cannot carry is written, and read back (ADR 15).

Ordinary text is written as people write it. A description line that would read as structure (a `- `
bullet, a `### ` header, an HTML comment, an indented bullet the reader un-indents, a code fence that does
not pair up within the description) gets a backslash, the markdown escape, which the reader removes; a one-line value that would not survive as written (line breaks,
a carriage return, surrounding whitespace, a leading quote) is a JSON string."""

from __future__ import annotations

import json
from typing import Optional

_LEGACY_INDENT = ("  - ", "  ### ")  # the first writer indented such lines; the reader still un-indents them
_STRUCTURE = ("- ", "### ", *_LEGACY_INDENT)
_FENCES = ("```", "~~~")


def _structure(line: str) -> bool:
    return line.startswith(_STRUCTURE) or line.lstrip().startswith("<!--")


def _escaped(line: str) -> bool:
    """A backslash (or several) before text that reads as structure or a code fence: the writer's escape."""
    rest = line.lstrip("\\")
    return len(rest) < len(line) and (_structure(rest) or _fence(rest))


def _fence(line: str) -> bool:
    """A line that may open or close a code fence (indented or not): the writer and reader must agree on it."""
    return line.lstrip(" ").startswith(_FENCES)


def escape_description_line(line: str, fences: bool = False) -> str:
    """The line as written: one more backslash when it would read as structure or as an escaped line, and
    with `fences` (a description whose code fences do not pair up) when it would open or close a fence."""
    if _structure(line) or _escaped(line) or (fences and _fence(line)):
        return "\\" + line
    return line


def unescape_description_line(line: str) -> str:
    """The description line a written line stands for (hand-written lines come back as they are)."""
    if _escaped(line):
        return line[1:]
    return line[2:] if line.startswith(_LEGACY_INDENT) else line


def plain_value(text: str) -> bool:
    """Whether a one-line field value reads back unchanged when written as is."""
    return bool(text) and text == text.strip() and "\n" not in text and "\r" not in text \
        and not text.startswith('"')


def encode_value(text: str) -> str:
    """A field value as written: as is when that reads back unchanged, else a JSON string."""
    return text if plain_value(text) else json.dumps(text, ensure_ascii=False)


def _written_json(raw: str, opening: str) -> object:
    """What `raw` (trimmed) stands for as JSON when it starts with `opening`, else None."""
    raw = raw.strip()
    if not raw.startswith(opening):
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None


def json_string(raw: str) -> Optional[str]:
    """The string a written JSON string stands for, or None when `raw` is not one."""
    value = _written_json(raw, '"')
    return value if isinstance(value, str) else None


def decode_value(raw: str) -> str:
    """A field value as `encode_value` wrote it, or as a person wrote it (taken as is, trimmed)."""
    decoded = json_string(raw)
    return raw.strip() if decoded is None else decoded


def json_strings(raw: str) -> Optional[list[str]]:
    """The list a written JSON array of strings stands for, or None when `raw` is not one."""
    values = _written_json(raw, "[")
    if isinstance(values, list) and all(isinstance(v, str) for v in values):
        return values
    return None
