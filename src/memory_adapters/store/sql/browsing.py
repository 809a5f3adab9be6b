"""EntryBrowser for both SQL stores: one filtered, sorted page and the overview's tallies, each answered by a few
queries (filters, ORDER BY, LIMIT/OFFSET and COUNT in SQL), so a page at 10k entries never reads them all."""

from __future__ import annotations

import json
from collections import Counter
from datetime import date
from typing import NamedTuple, Optional, Union

from memory_adapters.store.sql.connection import SqlConnection
from memory_adapters.store.sql.dialect import SqlDialect
from memory_core.entries.browsing import BrowsePage, BrowseQuery, InvalidBrowse, Tallies
from memory_core.entries.records import Entry


class BrowseSpelling(NamedTuple):
    """What the two stores spell differently in these queries."""

    day: str  # the UTC day of created_at: 'YYYY-MM-DD' text or a date
    id_list: str  # a subquery yielding the ids of one JSON-array parameter (any length, never SQL-built)
    text_order: str  # appended to a text sort key so both stores order bytes alike ('' or ' COLLATE "C"')


SQLITE_SPELLING = BrowseSpelling(day="substr(created_at, 1, 10)", id_list="SELECT value FROM json_each(?)",
                                 text_order="")
POSTGRES_SPELLING = BrowseSpelling(day="CAST(created_at AT TIME ZONE 'UTC' AS date)",
                                   id_list="SELECT jsonb_array_elements_text(%s::jsonb)",
                                   text_order=' COLLATE "C"')

_RECALLS = "COALESCE(recall_count, 0)"


def _sort_keys(spelling: BrowseSpelling) -> dict[str, str]:
    text = spelling.text_order
    return {"updated": "updated_at", "created": "created_at", "name": f"lower(name){text}",
            "category": f"category{text}", "recalls": _RECALLS, "last_shown": "last_recalled_at",
            "observations": "observation_count"}


class SqlEntryBrowsing:
    """Implements EntryBrowser over the `entries` table of any SQL connection."""

    def __init__(self, connection: SqlConnection, dialect: SqlDialect, spelling: BrowseSpelling) -> None:
        self._connection = connection
        self._dialect = dialect
        self._spelling = spelling
        self._keys = _sort_keys(spelling)

    def browse(self, query: BrowseQuery) -> BrowsePage:
        """One page of the live entries matching `query`, in its order (ties by id), with the total that match.
        Raises InvalidBrowse for a page past the last one."""
        if query.ids is not None and not query.ids:
            return self._page_or_refuse([], 0, query)
        where, params = self._where(query)
        total = int(self._connection.read(f"SELECT COUNT(*) FROM entries{where}", params)[0][0])
        if query.offset >= total:
            return self._page_or_refuse([], total, query)
        mark = self._dialect.mark
        # The page's ids first (sort keys only, no entry columns), then its 50 or so rows by id: the sort never
        # carries whole rows, vectors included.
        ids = [row[0] for row in self._connection.read(
            f"SELECT id FROM entries{where} ORDER BY {self._order(query)} LIMIT {mark} OFFSET {mark}",
            [*params, query.per_page, query.offset])]
        return BrowsePage(self._entries_in_order(ids), total, query)

    def tallies(self, top: int = 10) -> Tallies:
        """Counts by category, project and source, entries added per UTC day, recalled or not, and the `top` most
        recalled and oldest never-shown entries."""
        tallies = Tallies()
        # Two scans of the browse index: the day is counted apart, or the groups would multiply by the days.
        rows = self._connection.read(
            f"SELECT category, source, source_project, SUM(CASE WHEN {_RECALLS} > 0 THEN 1 ELSE 0 END), COUNT(*) "
            "FROM entries GROUP BY category, source, source_project")
        by_category: Counter = Counter()
        by_project: Counter = Counter()
        by_source: Counter = Counter()
        for category, source, project, recalled, count in rows:
            count, recalled = int(count), int(recalled)
            tallies.total += count
            by_category[category] += count
            by_project[project or ""] += count
            by_source[source] += count
            tallies.recalled += recalled
            tallies.never_recalled += count - recalled
        tallies.by_category = dict(by_category.most_common())
        tallies.by_project = dict(by_project.most_common())
        tallies.by_source = dict(by_source.most_common())
        day = self._spelling.day
        per_day: Counter = Counter()
        for value, count in self._connection.read(f"SELECT {day}, COUNT(*) FROM entries GROUP BY {day}"):
            when = _day(value)
            if when is not None:
                per_day[when] += int(count)
        tallies.added_per_day = dict(sorted(per_day.items()))
        mark = self._dialect.mark
        tallies.most_recalled = self._entries_in_order([row[0] for row in self._connection.read(
            f"SELECT id FROM entries WHERE {_RECALLS} > 0 ORDER BY {_RECALLS} DESC, id LIMIT {mark}", (top,))])
        tallies.never_shown = self._entries_in_order([row[0] for row in self._connection.read(
            f"SELECT id FROM entries WHERE {_RECALLS} = 0 ORDER BY created_at, id LIMIT {mark}", (top,))])
        return tallies

    def _where(self, query: BrowseQuery) -> tuple[str, list]:
        mark = self._dialect.mark
        clauses, params = [], []
        for column, value in (("category", query.category), ("source_project", query.project),
                              ("source", query.source)):
            if value is not None:
                clauses.append(f"{column} = {mark}")
                params.append(value)
        if query.trusted is not None:
            clauses.append("scope IS NULL" if query.trusted else "scope IS NOT NULL")
        if query.ids is not None:
            clauses.append(f"id IN ({self._spelling.id_list})")
            params.append(json.dumps(list(query.ids)))
        return (" WHERE " + " AND ".join(clauses) if clauses else ""), params

    def _order(self, query: BrowseQuery) -> str:
        key = self._keys[query.key]
        direction = " DESC" if query.descending else ""
        if query.key == "last_shown":  # never shown sorts last both ways
            return f"(last_recalled_at IS NULL), {key}{direction}, id"
        return f"{key}{direction}, id"

    def _entries_in_order(self, ids: list[str]) -> list[Entry]:
        if not ids:
            return []
        dialect = self._dialect
        marks = ",".join([dialect.mark] * len(ids))
        rows = self._connection.read(f"SELECT {dialect.columns} FROM entries WHERE id IN ({marks})", ids)
        found = {e.id: e for e in map(dialect.entry_of, rows) if e is not None}
        return [found[i] for i in ids if i in found]

    @staticmethod
    def _page_or_refuse(entries: list[Entry], total: int, query: BrowseQuery) -> BrowsePage:
        page = BrowsePage(entries, total, query)
        if query.page > page.pages:
            raise InvalidBrowse(f"page {query.page} is past the last ({page.pages})")
        return page


def _day(value: Union[str, date, None]) -> Optional[date]:
    if isinstance(value, date) or value is None:
        return value
    try:
        return date.fromisoformat(value)
    except ValueError:  # a hand-edited date the row reader would also refuse
        return None
