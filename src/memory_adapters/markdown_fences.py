"""Fenced code blocks in knowledge-bank markdown: a `### ` line inside one is an example, not an entry."""

from __future__ import annotations

import re
from typing import Optional

_OPENING = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def _closes(line: str, fence: str) -> bool:
    """Whether `line` ends the block `fence` opened (the same character, at least as many, nothing after)."""
    stripped = line.strip()
    return len(line) - len(line.lstrip(" ")) <= 3 and len(stripped) >= len(fence) and set(stripped) == {fence[0]}


def fence_mask(lines: list[str], skip: Optional[list[bool]] = None) -> list[bool]:
    """Which lines belong to a fenced code block, fences included. A fence that is never closed hides nothing:
    one stray ``` in a description must not swallow every entry after it. Lines in `skip` (comments) are
    neither fences nor content."""
    mask = [False] * len(lines)
    i = 0
    while i < len(lines):
        opening = None if skip and skip[i] else _OPENING.match(lines[i])
        if opening is None or (opening.group(1)[0] == "`" and "`" in lines[i][opening.end():]):
            i += 1  # a backtick fence's info string holds no backtick (CommonMark): that line is inline code
            continue
        end = next((j for j in range(i + 1, len(lines))
                    if not (skip and skip[j]) and _closes(lines[j], opening.group(1))), None)
        if end is None:
            i += 1
            continue
        for j in range(i, end + 1):
            mask[j] = True
        i = end + 1
    return mask


def unbalanced_fences(lines: list[str]) -> bool:
    """Whether some fence among `lines` is left open (the writer escapes such fence lines, see markdown_codec)."""
    opened = [i for i, line in enumerate(lines) if _OPENING.match(line)]
    mask = fence_mask(lines)
    return any(not mask[i] for i in opened)
