"""Keyword index port: full-text search with a relevance score."""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class KeywordIndex(Protocol):
    """Full-text search over name, description, keywords and reasoning."""

    @property
    def keyword_search_available(self) -> bool:
        """Whether keyword search works on this installation (e.g. FTS5 compiled in)."""
        ...

    @property
    def keyword_scale(self) -> str:
        """What the scores are: "bm25" (FTS5's, word rarity included) or "ts_rank_cd" (PostgreSQL's, without)."""
        ...

    def keyword_search(self, match_query: str, limit: int) -> dict[str, float]:
        """Return {entry id: relevance} (higher is better) for a sanitised OR query."""
        ...
