"""Candidate source port: a store too large to rank whole names the few entries worth ranking (ADR 22)."""

from __future__ import annotations

from typing import NamedTuple, Optional, Protocol, Sequence, runtime_checkable

from memory_core.records import EntryStats

PROMINENT_CANDIDATES = 200
"""Entries a session ranks beside those the signals found: the most observed, the most recent, the most recalled."""


class RankingSummary(NamedTuple):
    """What ranking needs to know about all the entries in scope without loading them."""

    total: int
    pending: int
    """Entries in scope that have no vector yet."""


@runtime_checkable
class CandidateSource(Protocol):
    """A store that ranks candidates instead of every entry: the entries the vector and keyword signals found,
    plus the prominent ones. A store without it is ranked whole (`EntryStore.ranking_stats`)."""

    def ranking_summary(self, scopes: Optional[Sequence[str]] = None) -> RankingSummary:
        """How many entries are in scope, and how many of them still lack a vector."""
        ...

    def prominent_stats(self, limit: int, scopes: Optional[Sequence[str]] = None) -> list[EntryStats]:
        """Ranking fields of up to `limit` entries in scope that prominence favours (most observed, most recent,
        most recalled, from indexes); always holds the entry with the most observations in scope, so the
        prominence formula's normalisation is the same as over every entry."""
        ...

    def ranking_stats_of(self, entry_ids: Sequence[str], scopes: Optional[Sequence[str]] = None) -> list[EntryStats]:
        """Ranking fields of these entries, leaving out unknown ones and those outside `scopes`."""
        ...
