"""Category-balanced selection shared by the semantic ranking and the legacy injector."""

from __future__ import annotations

import heapq
import itertools
from typing import Callable, Literal, Mapping, Sequence, TypeVar

from memory_core.entries.records import CATEGORIES, MIN_PER_CATEGORY

T = TypeVar("T")


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
    if fill == "score":
        return _select_by_score(items, category_of, sort_key, budget)
    buckets = {c: sorted((i for i in items if category_of(i) == c), key=sort_key) for c in CATEGORIES}
    non_empty = [c for c in CATEGORIES if buckets[c]]
    chosen: list[T] = []
    if budget >= MIN_PER_CATEGORY * len(non_empty):
        chosen = [item for c in non_empty for item in buckets[c][:MIN_PER_CATEGORY]]
    taken = {id(item) for item in chosen}
    rest = (i for c in non_empty for i in buckets[c] if id(i) not in taken)
    chosen.extend(itertools.islice(rest, max(budget - len(chosen), 0)))
    return chosen[:budget]


def select_by_scores(items: Sequence[T], scores: Mapping[str, float], id_of: Callable[[T], str],
                     category_of: Callable[[T], str], limit: int) -> list[T]:
    """`balanced_select` by score, best first and ties by id, reading only the head of the score order.

    Everything the selection can pick lies in the smallest prefix of the order that holds `limit + 9` items
    and 3 of each present category, so only that prefix is keyed and sorted. Pass C-level accessors
    (`operator.attrgetter`) for `id_of` and `category_of`: the pass over all items then stays out of Python.
    """
    def key(item: T) -> tuple[float, str]:
        entry_id = id_of(item)
        return -scores[entry_id], entry_id

    budget = effective_limit(limit, len(items))
    depth = budget + MIN_PER_CATEGORY * len(CATEGORIES)
    if budget <= 0 or depth >= len(items):
        return balanced_select(items, category_of, key, limit)
    ranked = list(map(scores.__getitem__, map(id_of, items)))
    threshold = sorted(ranked, reverse=True)[depth - 1]
    head = [item for item, score in zip(items, ranked) if score >= threshold]
    present = set(map(category_of, items)).intersection(CATEGORIES)
    in_head = {c: 0 for c in present}
    for category in map(category_of, head):
        if category in in_head:
            in_head[category] += 1
    if budget >= MIN_PER_CATEGORY * len(present) and min(in_head.values(), default=MIN_PER_CATEGORY) < MIN_PER_CATEGORY:
        return balanced_select(items, category_of, key, limit)  # a sparse category reaches deeper: read all
    return balanced_select(head, category_of, key, budget)


def _select_by_score(items: Sequence[T], category_of: Callable[[T], str], sort_key: Callable[[T], object],
                     budget: int) -> list[T]:
    """Spec 001 D3 selection with partial sorts: O(n log k) for a session's small limit."""
    keys = [sort_key(i) for i in items]
    by_category: dict[str, list[int]] = {c: [] for c in CATEGORIES}
    for index, item in enumerate(items):
        by_category.setdefault(category_of(item), []).append(index)
    non_empty = [c for c in CATEGORIES if by_category[c]]
    chosen: list[int] = []
    if budget >= MIN_PER_CATEGORY * len(non_empty):
        for c in non_empty:
            chosen += heapq.nsmallest(MIN_PER_CATEGORY, by_category[c], key=keys.__getitem__)
    taken = set(chosen)
    remaining = (k for c in non_empty for k in by_category[c] if k not in taken)
    chosen += heapq.nsmallest(max(budget - len(chosen), 0), remaining, key=keys.__getitem__)
    return [items[k] for k in chosen[:budget]]


def group_by_category(items: Sequence[T], category_of: Callable[[T], str]) -> list[tuple[str, list[T]]]:
    """Group selected items per category, in block order, keeping the selection order inside."""
    groups = [(c, [i for i in items if category_of(i) == c]) for c in CATEGORIES]
    return [(c, members) for c, members in groups if members]
