"""Progressive disclosure (issue 23): which selected entries an `index` block prints in full, and its budget.

The `index` style prints the best few entries in full and names the others in one line each; the agent reads
those with `get_memory` when it needs them. The selection itself is the same as the `full` style's."""

from __future__ import annotations

from typing import Callable, Generic, NamedTuple, Sequence, TypeVar

from memory_core.entries.records import Entry
from memory_core.ranking.budget import fit_to_budget

T = TypeVar("T")

FULL = "full"
INDEX = "index"
INDEX_FULL_ENTRIES = 5
"""Entries an index block prints in full. Five: the issue measured a relevant learning in the top 5 for about
90% of prompts on the real bank (recall@5 about 0.62), so the sixth and later are more often noise than help; the
prompt hook adds at most 3 more per prompt as the work moves on, and the rest cost one line (~80 characters)."""


def best_first(items: Sequence[T], score_of: Callable[[T], float], id_of: Callable[[T], str],
               count: int = INDEX_FULL_ENTRIES) -> tuple[list[T], list[T]]:
    """(the `count` best-scored items, the others), each in the selection's order. By score, not by the
    selection's order: that order puts each category's quota first, whatever its scores."""
    ranked = sorted(range(len(items)), key=lambda i: (-score_of(items[i]), id_of(items[i])))
    best = set(ranked[:max(count, 0)])
    return ([item for i, item in enumerate(items) if i in best],
            [item for i, item in enumerate(items) if i not in best])


class _Shown(NamedTuple, Generic[T]):
    item: T
    full: bool


def fit_index_to_budget(full: Sequence[T], listed: Sequence[T], entry_of: Callable[[T], Entry],
                        with_entry: Callable[[T, Entry], T], render: Callable[[list[T], list[T]], str],
                        max_chars: int, full_size: Callable[[T], int],
                        line_size: Callable[[T], int]) -> tuple[list[T], list[T]]:
    """`fit_to_budget` for an index block: the full entries' longest descriptions are shortened first (a
    listed entry prints no description), then the listed lines go from the last, then full entries."""
    shown = [_Shown(item, True) for item in full] + [_Shown(item, False) for item in listed]

    def split(chosen: Sequence[_Shown]) -> tuple[list[T], list[T]]:
        return [s.item for s in chosen if s.full], [s.item for s in chosen if not s.full]

    def printed_entry(shown_item: _Shown) -> Entry:
        entry = entry_of(shown_item.item)
        return entry if shown_item.full else entry.with_changes(description="")  # nothing to shorten in a line

    kept = fit_to_budget(shown, printed_entry, lambda s, e: _Shown(with_entry(s.item, e), s.full),
                         lambda chosen: render(*split(chosen)), max_chars,
                         lambda s: full_size(s.item) if s.full else line_size(s.item))
    return split(kept)
