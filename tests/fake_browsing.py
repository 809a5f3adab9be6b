"""EntryBrowser over a list of entries, as the SQL stores answer it (for the in-memory fake store)."""

from __future__ import annotations

from collections import Counter
from datetime import timezone
from typing import Any, Callable, Sequence

from memory_core.entries.browsing import BrowsePage, BrowseQuery, InvalidBrowse, Tallies
from memory_core.entries.records import Entry

_KEYS: dict[str, Callable[[Entry], Any]] = {
    "updated": lambda e: e.updated_at, "created": lambda e: e.created_at, "name": lambda e: e.name.lower(),
    "category": lambda e: e.category, "recalls": lambda e: e.recall_count,
    "last_shown": lambda e: e.last_recalled_at, "observations": lambda e: e.observation_count,
}


def browse_entries(entries: Sequence[Entry], query: BrowseQuery) -> BrowsePage:
    """One page of `entries` matching `query`, in its order (ties by ascending id, never-shown last)."""
    wanted = set(query.ids) if query.ids is not None else None
    matching = [e for e in entries
                if (query.category is None or e.category == query.category)
                and (query.project is None or e.source_project == query.project)
                and (query.source is None or e.source == query.source)
                and (query.trusted is None or (e.scope is None) == query.trusted)
                and (wanted is None or e.id in wanted)]
    key = _KEYS[query.key]
    ordered = sorted(matching, key=lambda e: e.id)
    if query.key == "last_shown":
        shown = sorted((e for e in ordered if e.last_recalled_at is not None), key=key, reverse=query.descending)
        ordered = shown + [e for e in ordered if e.last_recalled_at is None]
    else:
        ordered.sort(key=key, reverse=query.descending)  # stable: ties keep the id order
    page = BrowsePage(ordered[query.offset:query.offset + query.per_page], len(matching), query)
    if query.page > page.pages:
        raise InvalidBrowse(f"page {query.page} is past the last ({page.pages})")
    return page


def tally_entries(entries: Sequence[Entry], top: int) -> Tallies:
    """The overview's counts of `entries`."""
    per_day = Counter(e.created_at.astimezone(timezone.utc).date() for e in entries)
    recalled = [e for e in entries if e.recall_count > 0]
    never = [e for e in entries if e.recall_count == 0]
    return Tallies(
        total=len(entries),
        by_category=dict(Counter(e.category for e in entries).most_common()),
        by_project=dict(Counter(e.source_project or "" for e in entries).most_common()),
        by_source=dict(Counter(e.source for e in entries).most_common()),
        added_per_day=dict(sorted(per_day.items())),
        recalled=len(recalled), never_recalled=len(never),
        most_recalled=sorted(sorted(recalled, key=lambda e: e.id), key=lambda e: -e.recall_count)[:top],
        never_shown=sorted(never, key=lambda e: (e.created_at, e.id))[:top],
    )
