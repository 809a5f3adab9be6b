"""A candidate-source store double: the in-memory store that never hands out every entry's ranking fields."""

from __future__ import annotations

from datetime import datetime
from typing import Optional, Sequence

from memory_core.entries.models import EntryStats
from memory_core.ports.candidate_source import PER_CATEGORY_CANDIDATES, RankingSummary
from memory_core.ranking.scoring import Weights, final_scores
from tests.fake_entry_store import InMemoryEntryStore


class CandidateEntryStore(InMemoryEntryStore):
    """Answers the CandidateSource port (the exact top entries by prominence, ties by id) and refuses
    `ranking_stats`, so a test fails when a ranking loads every entry from a store that names candidates."""

    def __init__(self, now: datetime, keyword_search: bool = True) -> None:
        super().__init__(keyword_search=keyword_search)
        self.now = now
        self.asked_for: list[str] = []

    def ranking_stats(self, scopes: Optional[Sequence[str]] = None) -> list[EntryStats]:
        """Refused: a candidate source is never ranked whole."""
        raise AssertionError("a candidate source must not be asked for every entry's ranking fields")

    def _in_scope(self, scopes: Optional[Sequence[str]]) -> list[EntryStats]:
        return super().ranking_stats(scopes)

    def ranking_summary(self, scopes: Optional[Sequence[str]] = None,
                        category: Optional[str] = None) -> RankingSummary:
        """Entries in scope (of `category`), and how many lack a vector."""
        stats = [s for s in self._in_scope(scopes) if category is None or s.category == category]
        return RankingSummary(len(stats), sum(1 for s in stats if not s.has_embedding))

    def prominent_stats(self, limit: int, scopes: Optional[Sequence[str]] = None,
                        category: Optional[str] = None) -> list[EntryStats]:
        """The `limit` entries of highest prominence (ties by id) and the first few of each category, plus the
        most observed one (all of `category`, when given)."""
        stats = [s for s in self._in_scope(scopes) if category is None or s.category == category]
        prominence = final_scores(stats, {}, {}, Weights(0.0, 0.0, 1.0), self.now)[0]
        ordered = sorted(stats, key=lambda s: (-prominence[s.id], s.id))
        chosen = {s.id: s for s in ordered[:limit]}
        for category in {s.category for s in stats}:
            chosen.update((s.id, s) for s in [s for s in ordered if s.category == category][:PER_CATEGORY_CANDIDATES])
        most = max(stats, key=lambda s: s.observation_count, default=None)
        if most is not None:
            chosen.setdefault(most.id, most)
        return list(chosen.values())

    def ranking_stats_of(self, entry_ids: Sequence[str], scopes: Optional[Sequence[str]] = None) -> list[EntryStats]:
        """The ranking fields of these entries in scope."""
        self.asked_for.extend(entry_ids)
        wanted = set(entry_ids)
        return [s for s in self._in_scope(scopes) if s.id in wanted]
