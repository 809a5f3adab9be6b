"""Candidate source port: a store too large to rank whole names the few entries worth ranking (ADR 22)."""

from __future__ import annotations

from typing import NamedTuple, Optional, Protocol, Sequence, runtime_checkable

from memory_core.entries.records import EntryStats
from memory_core.entries.records import MIN_PER_CATEGORY

PROMINENT_CANDIDATES = 200
"""Entries a session ranks beside those the signals found: the most observed, the most recent, the most recalled."""
PER_CATEGORY_CANDIDATES = MIN_PER_CATEGORY
"""Prominent entries of each category among them: the balanced selection may reach that deep in any category."""


class RankingSummary(NamedTuple):
    """What ranking needs to know about all the entries in scope without loading them."""

    total: int
    pending: int
    """Entries in scope that have no vector yet."""


@runtime_checkable
class CandidateSource(Protocol):
    """A store that ranks candidates instead of every entry: the entries the vector and keyword signals found,
    plus the prominent ones. A store without it is ranked whole (`EntryStore.ranking_stats`)."""

    def ranking_summary(self, scopes: Optional[Sequence[str]] = None,
                        category: Optional[str] = None) -> RankingSummary:
        """How many entries are in scope (of `category`, when given), and how many of them still lack a vector."""
        ...

    def prominent_stats(self, limit: int, scopes: Optional[Sequence[str]] = None,
                        category: Optional[str] = None) -> list[EntryStats]:
        """Ranking fields of the entries in scope that prominence favours (most observed, most recent, most
        recalled, from indexes): `limit` of them overall and PER_CATEGORY_CANDIDATES of each category (the
        balanced selection takes that many of a category an entry of which no signal found); always holds the
        entry with the most observations in scope, so prominence is normalised as over every entry. With
        `category`, the same within that category (a search of one category)."""
        ...

    def ranking_stats_of(self, entry_ids: Sequence[str], scopes: Optional[Sequence[str]] = None) -> list[EntryStats]:
        """Ranking fields of these entries, leaving out unknown ones and those outside `scopes`."""
        ...
