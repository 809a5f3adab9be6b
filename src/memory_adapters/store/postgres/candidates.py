"""The PostgreSQL store as a candidate source (ADR 22): at a session start the server names the entries worth
ranking — the prominent ones, read from indexes — and counts the rest, so no query ships every row."""

from __future__ import annotations

from typing import Optional, Sequence

from memory_adapters.store.postgres.connection import PostgresConnection
from memory_adapters.store.postgres.rows import RANKING_SELECT, SCOPED
from memory_core.ports.candidate_source import PER_CATEGORY_CANDIDATES, RankingSummary
from memory_core.entries.records import CATEGORIES, EntryStats

# Prominence adds observations, confidence, recency and recalls; the entries it favours are found by the three
# ordered indexes (migration 2): `limit` from each, and PER_CATEGORY_CANDIDATES of each category from each. The
# first row of the first is the most observed entry, which sets the formula's scale.
_ORDERS = ("observation_count DESC, id", "updated_at DESC, id", "recall_count DESC, id")


_COUNTS = "SELECT COUNT(*), COUNT(*) FILTER (WHERE embedding IS NULL) FROM entries"
_SPLIT_COUNT = ("SELECT (SELECT COUNT(*) FROM entries WHERE scope IS NULL) + (SELECT COUNT(*) FROM (SELECT id FROM "
                "entries WHERE scope = ANY(%s) UNION SELECT s.id FROM entry_scopes s JOIN entries e USING (id) "
                "WHERE s.scope = ANY(%s) AND e.scope IS NOT NULL) mine), (SELECT COUNT(*) FROM entries "
                "WHERE embedding IS NULL")


def _scoped(scopes: Optional[Sequence[str]]) -> tuple[str, tuple]:
    """The WHERE clause and parameters that keep universal entries and those of `scopes` (everything for None)."""
    if scopes is None:
        return "", ()
    return f" WHERE ({SCOPED.removeprefix(' WHERE ')})", (list(scopes), list(scopes))


class PostgresCandidates:
    """Implements CandidateSource: prominent entries from indexes, the found ones by id, counts in SQL."""

    def __init__(self, connection: PostgresConnection) -> None:
        self._connection = connection

    def ranking_summary(self, scopes: Optional[Sequence[str]] = None,
                        category: Optional[str] = None) -> RankingSummary:
        """How many entries are in scope (of `category`, when given), and how many of them have no vector yet
        (one round trip)."""
        if category is not None:  # a search of one category: its index narrows the count
            where, params = _scoped(scopes)
            where = f"{where} AND category = %s" if where else " WHERE category = %s"
            total, pending = self._connection.read(_COUNTS + where, (*params, category))[0]
            return RankingSummary(int(total), int(pending))
        if scopes is None:
            total, pending = self._connection.read(_COUNTS)[0]
            return RankingSummary(int(total), int(pending))
        where, params = _scoped(scopes)
        # Universal entries, plus this project's (its own and those its bank holds too): index scans at 1M, where
        # one COUNT over the OR of the three reads every row.
        in_scope = where.replace(" WHERE ", " AND ", 1)
        total, pending = self._connection.read(f"{_SPLIT_COUNT}{in_scope})", (list(scopes), list(scopes), *params))[0]
        return RankingSummary(int(total), int(pending))

    def prominent_stats(self, limit: int, scopes: Optional[Sequence[str]] = None,
                        category: Optional[str] = None) -> list[EntryStats]:
        """Up to `limit` most observed, most recent and most recalled entries in scope, and as many of each
        category as the balanced selection may take (one round trip, each part read from an index); with
        `category`, `limit` of each order within it."""
        where, params = _scoped(scopes)
        in_category = f"{where} AND category = %s" if where else " WHERE category = %s"
        parts, values = [], []
        for order in _ORDERS:
            if category is not None:
                parts.append(f"({RANKING_SELECT}{in_category} ORDER BY {order} LIMIT %s)")
                values += [*params, category, int(limit)]
                continue
            parts.append(f"({RANKING_SELECT}{where} ORDER BY {order} LIMIT %s)")
            values += [*params, int(limit)]
            for each in CATEGORIES:
                parts.append(f"({RANKING_SELECT}{in_category} ORDER BY {order} LIMIT %s)")
                values += [*params, each, PER_CATEGORY_CANDIDATES]
        rows = self._connection.read(" UNION ".join(parts), tuple(values))
        return sorted(map(EntryStats._make, rows), key=lambda s: (-s.observation_count, s.id))

    def ranking_stats_of(self, entry_ids: Sequence[str], scopes: Optional[Sequence[str]] = None) -> list[EntryStats]:
        """Ranking fields of these entries, leaving out unknown ones and those outside `scopes`."""
        if not entry_ids:
            return []
        where, params = _scoped(scopes)
        where = f"{where} AND id = ANY(%s)" if where else " WHERE id = ANY(%s)"
        return list(map(EntryStats._make, self._connection.read(RANKING_SELECT + where, (*params, list(entry_ids)))))
