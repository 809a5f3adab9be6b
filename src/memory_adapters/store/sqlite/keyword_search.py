"""The FTS5 keyword index of the SQLite store (kept in step with `entries` by triggers)."""

from __future__ import annotations

import sqlite3
import sys
from collections import OrderedDict
from typing import Optional

from memory_adapters.store.sqlite.connection import SqliteConnection
from memory_core.ranking.absolute_relevance import BM25_SCALE

_RANKED = "SELECT rowid AS hit_rowid, bm25(entries_fts) AS score FROM entries_fts WHERE entries_fts MATCH ? " \
          "ORDER BY score LIMIT ?"
# Rank inside FTS5 first, then join only the kept rows (joining every match costs a third more).
_RANKED_IDS = f"SELECT e.id, hit.score FROM ({_RANKED}) AS hit JOIN entries e ON e.rowid = hit.hit_rowid " \
              "ORDER BY hit.score"


KEPT_SEARCHES = 64


class SqliteKeywordSearch:
    """KeywordIndex over the `entries_fts` table, ranked by bm25."""

    def __init__(self, connection: SqliteConnection) -> None:
        self._connection = connection
        # (change token, {rowid: id} or None): the ids of a store searched again without a change in between, so
        # the hits need no join with the rows (a quarter of the search at 10k entries).
        self._kept_ids: Optional[tuple[object, Optional[dict[int, str]]]] = None
        # (change token, {(query, limit): hits}): the last searches' results, while nothing was committed.
        self._kept_hits: Optional[tuple[object, OrderedDict]] = None

    @property
    def keyword_search_available(self) -> bool:
        """Whether FTS5 is compiled in and the index exists."""
        return self._connection.fts5

    @property
    def keyword_scale(self) -> str:
        """FTS5's BM25 (negated): the scale the absolute relevance was fitted on."""
        return BM25_SCALE

    def keyword_search(self, match_query: str, limit: int) -> dict[str, float]:
        """Run FTS5 MATCH and return {id: -bm25} (higher is more relevant)."""
        if not self._connection.fts5:
            return {}
        with self._connection.locked() as conn:
            token, kept = self._connection.change_token(), self._kept_hits
            if token is None or kept is None or kept[0] != token:
                kept = (token, OrderedDict())
            if (match_query, limit) in kept[1]:
                return dict(kept[1][(match_query, limit)])
            hits = self._search(conn, match_query, limit, token)
            if hits is None:
                return {}
            if token is not None:
                kept[1][(match_query, limit)] = hits
                while len(kept[1]) > KEPT_SEARCHES:
                    kept[1].popitem(last=False)
                self._kept_hits = kept
            return dict(hits)

    def _search(self, conn: sqlite3.Connection, match_query: str, limit: int,
                token: object) -> Optional[dict[str, float]]:
        """The hits, or None (with a warning) when FTS5 refused the query."""
        try:
            ids = self._ids_by_rowid(conn, token)
            if ids is not None:
                hits = conn.execute(_RANKED, (match_query, limit)).fetchall()
                found = {ids.get(rowid): -score for rowid, score in hits}
                if None not in found and len(found) == len(hits) and self._connection.change_token() == token:
                    return found  # nothing committed since the ids were read: they are the hits' ids
            rows = conn.execute(_RANKED_IDS, (match_query, limit)).fetchall()
        except sqlite3.OperationalError as exc:
            print(f"iflow-memory: keyword search failed: {exc}", file=sys.stderr)
            return None
        return {entry_id: -score for entry_id, score in rows}

    def _ids_by_rowid(self, conn: sqlite3.Connection, token: object) -> Optional[dict[int, str]]:
        """The kept ids for this token; read on the second search with the same token (a one-search process,
        such as a session start, never pays for reading them)."""
        kept = self._kept_ids
        if token is None or kept is None or kept[0] != token:
            self._kept_ids = (token, None) if token is not None else None
            return None
        if kept[1] is None:
            self._kept_ids = (token, dict(conn.execute("SELECT rowid, id FROM entries").fetchall()))
        return self._kept_ids[1]
