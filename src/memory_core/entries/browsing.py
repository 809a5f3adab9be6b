"""What the viewer asks a store for: one sorted, filtered page of entries, and the tallies of the overview
(computed by the store itself, so a page at 10k entries never loads them all)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Optional

from memory_core.entries.records import Entry

SORTS = ("updated", "created", "name", "category", "recalls", "last_shown", "observations")
"""Orders a page may ask for; each also has a descending form (`-updated`). Ties break on the id."""
DEFAULT_SORT = "-updated"
PAGE_SIZES = (25, 50, 100)


class InvalidBrowse(ValueError):
    """A page request the store cannot answer (unknown sort, page out of range)."""


@dataclass(frozen=True)
class BrowseQuery:
    """Filters, order and page of a listing. Every filter is optional; they combine with AND."""

    category: Optional[str] = None
    project: Optional[str] = None
    """`source_project` equal to this (where the entry was learned)."""
    source: Optional[str] = None
    """`source` equal to this (manual, session-capture, import, …)."""
    trusted: Optional[bool] = None
    """True: universal entries (every project's sessions see them); False: kept to one repository (scope set)."""
    ids: Optional[tuple[str, ...]] = None
    """Only these ids (the stale filter: the ids the review found stale); an empty tuple matches nothing."""
    sort: str = DEFAULT_SORT
    page: int = 1
    per_page: int = 50

    def __post_init__(self) -> None:
        if self.sort.lstrip("-") not in SORTS:
            raise InvalidBrowse(f"unknown sort {self.sort!r}; one of {', '.join(SORTS)} (prefix - for descending)")
        if self.page < 1:
            raise InvalidBrowse("page starts at 1")
        if not 1 <= self.per_page <= 100:
            raise InvalidBrowse("per_page is 1 to 100")

    @property
    def descending(self) -> bool:
        """Whether the order is reversed (`-name`)."""
        return self.sort.startswith("-")

    @property
    def key(self) -> str:
        """The sort's name without its direction."""
        return self.sort.lstrip("-")

    @property
    def offset(self) -> int:
        """How many matching entries come before this page."""
        return (self.page - 1) * self.per_page


@dataclass
class BrowsePage:
    """One page of matching entries and how many match in all."""

    entries: list[Entry]
    total: int
    query: BrowseQuery

    @property
    def pages(self) -> int:
        """How many pages the matches fill (at least 1)."""
        return max(1, -(-self.total // self.query.per_page))


@dataclass
class Tallies:
    """The overview's numbers, as the store counts them."""

    total: int = 0
    by_category: dict[str, int] = field(default_factory=dict)
    by_project: dict[str, int] = field(default_factory=dict)
    """Entries per `source_project` ('' for none)."""
    by_source: dict[str, int] = field(default_factory=dict)
    added_per_day: dict[date, int] = field(default_factory=dict)
    """Entries created per UTC day."""
    recalled: int = 0
    """Entries shown at least once."""
    never_recalled: int = 0
    most_recalled: list[Entry] = field(default_factory=list)
    """The most recalled entries (up to the asked number), most first."""
    never_shown: list[Entry] = field(default_factory=list)
    """The oldest entries never shown (up to the asked number), oldest first."""
