"""Category-balanced selection shared by the semantic ranking and the legacy injector."""

from __future__ import annotations

from typing import Callable, Literal, Sequence, TypeVar

from memory_core.models import CATEGORIES

T = TypeVar("T")
MIN_PER_CATEGORY = 3


def effective_limit(limit: int, available: int) -> int:
    """-1 (any negative) means no limit; otherwise cap at what is available."""
    return available if limit < 0 else min(limit, available)


def balanced_select(
    items: Sequence[T],
    category_of: Callable[[T], str],
    sort_key: Callable[[T], object],
    limit: int,
    fill: Literal["score", "category-priority"] = "score",
) -> list[T]:
    """Take 3 per non-empty category (when the limit allows 3 for each), then fill the rest.

    `sort_key` orders best first. With fill="score" the remaining slots go to the best items
    overall (spec 001 D3); with "category-priority" anti-patterns, then heuristics, then
    patterns (the reference markdown injector, spec 002).
    """
    budget = effective_limit(limit, len(items))
    if budget <= 0:
        return []
    buckets = {c: sorted((i for i in items if category_of(i) == c), key=sort_key) for c in CATEGORIES}
    non_empty = [c for c in CATEGORIES if buckets[c]]
    chosen: list[T] = []
    taken: set[int] = set()

    def take(item: T) -> None:
        chosen.append(item)
        taken.add(id(item))

    if budget >= MIN_PER_CATEGORY * len(non_empty):
        for c in non_empty:
            for item in buckets[c][:MIN_PER_CATEGORY]:
                take(item)
    if fill == "score":
        rest = sorted((i for c in non_empty for i in buckets[c] if id(i) not in taken), key=sort_key)
    else:
        rest = [i for c in non_empty for i in buckets[c] if id(i) not in taken]
    for item in rest:
        if len(chosen) >= budget:
            break
        take(item)
    return chosen[:budget]


def group_by_category(items: Sequence[T], category_of: Callable[[T], str]) -> list[tuple[str, list[T]]]:
    """Group selected items per category, in block order, keeping the selection order inside."""
    groups = [(c, [i for i in items if category_of(i) == c]) for c in CATEGORIES]
    return [(c, members) for c, members in groups if members]
