"""The query changes this benchmark suggests, applied by patching the PostgreSQL store's classes in the process
that imports this module (a prototype for measurement: the product is unchanged):

- keyword search leaves out the terms in more than COMMON_SHARE of the entries (their shares are the
  `most_common_elems` ANALYZE keeps in pg_stats, read once per store), so ts_rank_cd no longer ranks most rows;
- a session asks whether the store holds entries with EXISTS instead of COUNT(*).

(Counting in-scope entries as universal + this project's scoped ones, suggested here before, is the product's
`ranking_summary` now.)"""

from __future__ import annotations

COMMON_SHARE = 0.005


def apply() -> None:
    """Patch the PostgreSQL store's search and the session start's import check."""
    from memory_adapters.store.postgres import search as postgres_search
    from memory_adapters.store.postgres.search import PostgresSearch
    from memory_adapters.store.postgres.store import PostgresEntryStore
    from memory_core.policies import first_import
    from memory_core.usecases import session_start

    def common_terms(search) -> frozenset:
        if getattr(search, "_bench_common", None) is None:
            rows = search._connection.read("SELECT most_common_elems::text::text[], most_common_elem_freqs "
                                           "FROM pg_stats WHERE tablename = 'entries' AND attname = 'search'")
            terms, shares = rows[0] if rows and rows[0][0] is not None else ([], [])
            search._bench_common = frozenset(t for t, s in zip(terms, shares) if s > COMMON_SHARE)
        return search._bench_common

    def keyword_search(self, match_query: str, limit: int) -> dict[str, float]:
        query = postgres_search.tsquery_text(match_query) if self._keyword_search else None
        terms = [t for t in (query or "").split(" | ") if t and t not in common_terms(self)]
        if not terms:
            return {}
        return {i: float(s) for i, s in self._connection.read(postgres_search._SEARCH, (" | ".join(terms), limit))}

    def is_imported(store, project_root: str) -> bool:
        if not isinstance(store, PostgresEntryStore):
            return original_is_imported(store, project_root)
        return (store.get_metadata(first_import.import_marker(project_root)) is not None
                and bool(store.connection.read("SELECT EXISTS (SELECT 1 FROM entries)")[0][0]))

    original_is_imported = first_import.is_imported
    PostgresSearch.keyword_search = keyword_search
    session_start.is_imported = is_imported
