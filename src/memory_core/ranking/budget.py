"""Keeps the injected block within a character budget: shorten the longest descriptions, drop entries last."""

from __future__ import annotations

import heapq
from typing import Callable, Sequence, TypeVar

from memory_core.entries.records import Entry

T = TypeVar("T")
MIN_DESCRIPTION = 160
ELLIPSIS = "…"


def shorten(text: str, length: int, floor: int = 0) -> str:
    """Cut text to at most `length` characters (never below `floor`), at a word boundary when one is near,
    ending with an ellipsis."""
    if len(text) <= length:
        return text
    cut = text[: max(length - 1, 1)]
    space = cut.rfind(" ")
    if space > length * 0.6 and space + 1 >= floor and len(cut[:space].rstrip()) + 1 >= floor:
        cut = cut[:space]
    cut = cut.rstrip() if len(cut.rstrip()) + 1 >= floor else cut
    return cut + ELLIPSIS


def fit_to_budget(items: Sequence[T], entry_of: Callable[[T], Entry], with_entry: Callable[[T, Entry], T],
                  render: Callable[[Sequence[T]], str], max_chars: int,
                  item_size: Callable[[T], int]) -> list[T]:
    """Shorten the longest descriptions first (never below 160 chars), then drop the last-ranked items.

    `max_chars <= 0` means no budget. Lengths are tracked arithmetically and checked by one final render,
    so the cost stays linear in the number of items.
    """
    chosen = list(items)
    if max_chars <= 0 or not chosen:
        return chosen
    total = len(render(chosen))
    longest = [(-len(entry_of(item).description), i) for i, item in enumerate(chosen)]
    heapq.heapify(longest)
    while total > max_chars and longest:
        negative, index = heapq.heappop(longest)
        description = entry_of(chosen[index]).description
        if len(description) <= MIN_DESCRIPTION:
            break
        runner_up = -longest[0][0] if longest else 0
        target = max(MIN_DESCRIPTION, len(description) - (total - max_chars), runner_up - 1)
        new = shorten(description, min(target, len(description) - 1), MIN_DESCRIPTION)
        total -= len(description) - len(new)
        entry = entry_of(chosen[index]).with_changes(description=new)
        chosen[index] = with_entry(chosen[index], entry)
        if len(new) > MIN_DESCRIPTION:
            heapq.heappush(longest, (-len(new), index))
    while chosen and total > max_chars:
        total -= item_size(chosen.pop())  # lowest-ranked entries go last
    while chosen and len(render(chosen)) > max_chars:  # section headers and separators: settle exactly
        chosen.pop()
    return chosen
