"""Fenced code blocks in knowledge-bank markdown: a `### ` line inside one is an example, not an entry."""

from __future__ import annotations

import re
from typing import Optional

_OPENING = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def _closing_length(line: str) -> tuple[str, int]:
    """(fence character, length) when `line` could close a fence (only ` or ~, up to 3 spaces before), else ("", 0)."""
    stripped = line.strip()
    if len(line) - len(line.lstrip(" ")) > 3 or len(stripped) < 3 or stripped[0] not in "`~" \
            or stripped != stripped[0] * len(stripped):
        return "", 0
    return stripped[0], len(stripped)


def fence_mask(lines: list[str], skip: Optional[list[bool]] = None) -> list[bool]:
    """Which lines belong to a fenced code block, fences included. A fence that is never closed hides nothing:
    one stray ``` in a description must not swallow every entry after it. Lines in `skip` (comments) are
    neither fences nor content. Linear: the longest closing fence still to come is known for every line, so
    an opener without a closer is passed over without a scan."""
    n = len(lines)
    closers = [("", 0) if skip and skip[i] else _closing_length(lines[i]) for i in range(n)]
    longest = {"`": [0] * (n + 1), "~": [0] * (n + 1)}  # longest closer at or after each line
    for i in range(n - 1, -1, -1):
        for char, after in longest.items():
            after[i] = max(after[i + 1], closers[i][1] if closers[i][0] == char else 0)
    mask = [False] * n
    i = 0
    while i < n:
        opening = None if skip and skip[i] else _OPENING.match(lines[i])
        fence = opening.group(1) if opening else ""
        if not fence or (fence[0] == "`" and "`" in lines[i][opening.end():]) or longest[fence[0]][i + 1] < len(fence):
            i += 1  # not a fence (a backtick fence's info string holds no backtick), or one never closed
            continue
        end = next(j for j in range(i + 1, n) if closers[j][0] == fence[0] and closers[j][1] >= len(fence))
        for j in range(i, end + 1):
            mask[j] = True
        i = end + 1
    return mask


def unbalanced_fences(lines: list[str]) -> bool:
    """Whether some fence among `lines` is left open (the writer escapes such fence lines, see markdown_codec)."""
    opened = [i for i, line in enumerate(lines) if _OPENING.match(line)]
    mask = fence_mask(lines)
    return any(not mask[i] for i in opened)
