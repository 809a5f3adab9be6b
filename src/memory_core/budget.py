"""Keeps the injected block within a character budget: shorten the longest descriptions, drop entries last."""

from __future__ import annotations

from typing import Callable, Sequence, TypeVar

from memory_core.models import Entry

T = TypeVar("T")
MIN_DESCRIPTION = 160
ELLIPSIS = "…"


def _shorten(text: str, length: int) -> str:
    if len(text) <= length:
        return text
    cut = text[: max(length - 1, 1)]
    space = cut.rfind(" ")
    if space > length * 0.6:
        cut = cut[:space]
    return cut.rstrip() + ELLIPSIS


def fit_to_budget(items: Sequence[T], entry_of: Callable[[T], Entry], with_entry: Callable[[T, Entry], T],
                  render: Callable[[Sequence[T]], str], max_chars: int) -> list[T]:
    """Shorten the longest descriptions first (never below 160 chars), then drop the last-ranked items."""
    chosen = list(items)
    if max_chars <= 0:
        return chosen
    while chosen and len(render(chosen)) > max_chars:
        overflow = len(render(chosen)) - max_chars
        longest = max(range(len(chosen)), key=lambda i: len(entry_of(chosen[i]).description))
        entry = entry_of(chosen[longest])
        if len(entry.description) > MIN_DESCRIPTION:
            others = [len(entry_of(c).description) for i, c in enumerate(chosen) if i != longest]
            target = max(MIN_DESCRIPTION, len(entry.description) - overflow, max(others, default=0) - 1)
            target = min(target, len(entry.description) - 1)
            shortened = entry.model_copy(update={"description": _shorten(entry.description, target)})
            chosen[longest] = with_entry(chosen[longest], shortened)
        else:
            chosen.pop()  # every description is already short: drop the lowest-ranked entry
    return chosen
