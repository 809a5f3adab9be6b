"""The FTS5 keyword index of the SQLite store (kept in step with `entries` by triggers)."""

from __future__ import annotations

import sqlite3
import sys

from memory_adapters.sqlite_connection import SqliteConnection


class SqliteKeywordSearch(SqliteConnection):
    """KeywordIndex over the `entries_fts` table, ranked by bm25."""

    @property
    def keyword_search_available(self) -> bool:
        """Whether FTS5 is compiled in and the index exists."""
        return self._fts5

    def keyword_search(self, match_query: str, limit: int) -> dict[str, float]:
        """Run FTS5 MATCH and return {id: -bm25} (higher is more relevant)."""
        if not self._fts5:
            return {}
        try:
            with self._lock:
                # Rank inside FTS5 first, then join only the kept rows (joining every match costs a third more).
                rows = self._conn.execute(
                    "SELECT e.id, hit.score FROM (SELECT rowid AS hit_rowid, bm25(entries_fts) AS score "
                    "FROM entries_fts WHERE entries_fts MATCH ? ORDER BY score LIMIT ?) AS hit "
                    "JOIN entries e ON e.rowid = hit.hit_rowid ORDER BY hit.score",
                    (match_query, limit),
                ).fetchall()
        except sqlite3.OperationalError as exc:
            print(f"iflow-memory: keyword search failed: {exc}", file=sys.stderr)
            return {}
        return {entry_id: -score for entry_id, score in rows}
