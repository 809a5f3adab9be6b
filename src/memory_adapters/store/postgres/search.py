"""Full-text search and cited files in the PostgreSQL store: a generated `tsvector` (GIN-indexed) over name,
description, keywords and reasoning, ranked by `ts_rank_cd`; and the entries whose references cite files."""

from __future__ import annotations

import json
import time
from typing import Optional

from memory_adapters.store.postgres.connection import PostgresConnection
from memory_core.ranking.absolute_relevance import TS_RANK_CD_SCALE
from memory_core.ranking.fts_query import sanitise_fts_query

# `simple`: no stemming and no stopwords, like FTS5's unicode61 tokenizer (the core drops stopwords itself).
_SEARCH = ("SELECT id, ts_rank_cd(search, q) AS score FROM entries, to_tsquery('simple', %s) AS q "
           "WHERE search @@ q ORDER BY score DESC, seq LIMIT %s")


COMMON_SHARE = 0.005
"""A word in more than this share of the entries tells them apart too little to be worth ranking every match."""
COMMON_FROM_ROWS = 20_000
"""Below this many entries every word is kept: ranking all matches is fast, and every word is rare enough."""
WORD_STATS_KEPT_S = 600
# ANALYZE keeps the most common words of `entries.search` and the share of rows holding each.
_WORD_STATS = ("SELECT c.reltuples, s.most_common_elems::text::text[], s.most_common_elem_freqs FROM pg_class c "
               "LEFT JOIN pg_stats s ON s.schemaname = current_schema() AND s.tablename = 'entries' "
               "AND s.attname = 'search' WHERE c.oid = 'entries'::regclass")


def tsquery_text(match_query: str) -> Optional[str]:
    """The `to_tsquery` text of a sanitised OR query (`a OR b` -> `a | b`): each part is sanitised again by the
    core's rules, so only plain words reach the parser; None when nothing is left."""
    terms: list[str] = []
    for part in match_query.split(" OR "):
        for term in (sanitise_fts_query(part) or "").split(" OR "):
            if term and term not in terms:
                terms.append(term)
    return " | ".join(terms) if terms else None


class PostgresSearch:
    """KeywordIndex over `entries.search`, and ReferenceIndex over `entries.references`."""

    def __init__(self, connection: PostgresConnection, keyword_search: bool = True) -> None:
        self._connection = connection
        self._keyword_search = keyword_search
        self._common_kept: Optional[tuple[float, frozenset]] = None  # (when read, the words too common to rank)

    @property
    def keyword_search_available(self) -> bool:
        """Whether keyword search is switched on (the index is always there)."""
        return self._keyword_search

    @property
    def keyword_scale(self) -> str:
        """ts_rank_cd: no word rarity and another scale than BM25, so the absolute relevance reads it as matched
        or not (absolute_relevance.KEYWORD_MATCHED, MEANING_ONLY)."""
        return TS_RANK_CD_SCALE

    def keyword_search(self, match_query: str, limit: int) -> dict[str, float]:
        """Return {id: ts_rank_cd} (higher is more relevant) for a sanitised OR query. In a large store the words
        in more than COMMON_SHARE of the entries are left out: ts_rank_cd knows no word rarity (FTS5's bm25
        does), and ranking the matches of a word most entries hold reads most rows (seconds at 1M)."""
        query = tsquery_text(match_query) if self._keyword_search else None
        if query is None:
            return {}
        common = self._common_words()
        terms = [t for t in query.split(" | ") if t not in common]
        if not terms:
            return {}
        hits = self._connection.read(_SEARCH, (" | ".join(terms), limit))
        return {entry_id: float(score) for entry_id, score in hits}

    def _common_words(self) -> frozenset:
        """The words too common to rank by (none below COMMON_FROM_ROWS entries), from the planner's statistics,
        read again every WORD_STATS_KEPT_S seconds."""
        kept = self._common_kept
        if kept is not None and time.monotonic() - kept[0] < WORD_STATS_KEPT_S:
            return kept[1]
        rows = self._connection.read(_WORD_STATS)
        common: frozenset = frozenset()
        if rows and rows[0][0] >= COMMON_FROM_ROWS and rows[0][1] is not None:
            common = frozenset(word for word, share in zip(rows[0][1], rows[0][2]) if share > COMMON_SHARE)
        self._common_kept = (time.monotonic(), common)
        return common

    def cited_files(self) -> dict[str, list[str]]:
        """Return {entry id: its references} for every entry that cites at least one."""
        rows = self._connection.read("SELECT id, \"references\"::text FROM entries WHERE \"references\" <> '[]'::jsonb")
        return {entry_id: [str(r) for r in json.loads(text)] for entry_id, text in rows if json.loads(text)}
