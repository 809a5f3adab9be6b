"""Full-text search and cited files in the PostgreSQL store: a generated `tsvector` (GIN-indexed) over name,
description, keywords and reasoning, ranked by `ts_rank_cd`; and the entries whose references cite files."""

from __future__ import annotations

import json
from typing import Optional

from memory_adapters.postgres_connection import PostgresConnection
from memory_core.fts_query import sanitise_fts_query

# `simple`: no stemming and no stopwords, like FTS5's unicode61 tokenizer (the core drops stopwords itself).
_SEARCH = ("SELECT id, ts_rank_cd(search, q) AS score FROM entries, to_tsquery('simple', %s) AS q "
           "WHERE search @@ q ORDER BY score DESC, seq LIMIT %s")


def tsquery_text(match_query: str) -> Optional[str]:
    """The `to_tsquery` text of a sanitised OR query (`a OR b` -> `a | b`): each part is sanitised again by the
    core's rules, so only plain words reach the parser; None when nothing is left."""
    terms: list[str] = []
    for part in match_query.split(" OR "):
        for term in (sanitise_fts_query(part) or "").split(" OR "):
            if term and term not in terms:
                terms.append(term)
    return " | ".join(terms) if terms else None


class PostgresSearch(PostgresConnection):
    """KeywordIndex over `entries.search`, and ReferenceIndex over `entries.references`."""

    @property
    def keyword_search_available(self) -> bool:
        """Whether keyword search is switched on (the index is always there)."""
        return self._keyword_search

    def keyword_search(self, match_query: str, limit: int) -> dict[str, float]:
        """Return {id: ts_rank_cd} (higher is more relevant) for a sanitised OR query."""
        query = tsquery_text(match_query) if self._keyword_search else None
        if query is None:
            return {}
        return {entry_id: float(score) for entry_id, score in self._read(_SEARCH, (query, limit))}

    def cited_files(self) -> dict[str, list[str]]:
        """Return {entry id: its references} for every entry that cites at least one."""
        rows = self._read("SELECT id, \"references\"::text FROM entries WHERE \"references\" <> '[]'::jsonb")
        return {entry_id: [str(r) for r in json.loads(text)] for entry_id, text in rows if json.loads(text)}
