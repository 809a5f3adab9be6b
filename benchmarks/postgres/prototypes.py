"""Query shapes a session start could send instead, timed with EXPLAIN ANALYZE on the same database and the
same parameters as the recorded session (nothing here changes the product): an estimated count, EXISTS for
"is the store empty", the keyword query without the terms most entries contain (their frequencies are in
pg_stats, collected by ANALYZE), a keyword query that ranks a bounded pre-filter, and HNSW ef_search values."""

from __future__ import annotations

from typing import Optional

from benchmarks.postgres.explain import explain

COMMON_TERM_FREQUENCY = 0.02  # a term in more than 2 % of the entries selects nothing worth ranking


def common_terms(url: str, threshold: float = COMMON_TERM_FREQUENCY) -> dict[str, float]:
    """The words ANALYZE found in more than `threshold` of the entries' search vectors, with that share."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT most_common_elems::text::text[], most_common_elem_freqs FROM pg_stats "
                           "WHERE tablename = 'entries' AND attname = 'search'").fetchone()
    if not row or row[0] is None:
        return {}
    return {term: freq for term, freq in zip(row[0], row[1]) if freq > threshold}


def _find(statements: list[dict], start: str) -> Optional[dict]:
    return next((s for s in statements if s["sql"].startswith(start)), None)


def prototypes(url: str, recorded: list[dict], scopes: list[str]) -> dict:
    """Each alternative's EXPLAIN ANALYZE time, next to the statement it would replace."""
    found: dict = {}
    found["estimated_count"] = {**_brief(explain(url, "SELECT reltuples::bigint FROM pg_class WHERE oid = "
                                                      "'entries'::regclass")),
                                "note": "replaces COUNT(*) in ranking_summary/count: the planner's estimate"}
    found["exists_instead_of_count"] = {**_brief(explain(url, "SELECT EXISTS (SELECT 1 FROM entries)")),
                                        "note": "is_imported only needs count() > 0"}
    found["pending_count_from_partial_index"] = {
        **_brief(explain(url, "SELECT COUNT(*) FROM entries WHERE embedding IS NULL")),
        "note": "ranking_summary's pending part alone (idx_entries_pending)"}
    found["scoped_count_only"] = {**_brief(explain(
        url, "SELECT COUNT(*) FROM entries WHERE scope IS NOT NULL AND NOT (scope = ANY(%s) OR id IN "
             "(SELECT id FROM entry_scopes WHERE scope = ANY(%s)))", (scopes, scopes))),
        "note": "entries hidden from this project; total in scope = estimate - this (idx_entries_scope)"}
    found["exact_count_split"] = {**_brief(explain(
        url, "SELECT (SELECT COUNT(*) FROM entries WHERE scope IS NULL) + (SELECT COUNT(*) FROM (SELECT id FROM "
             "entries WHERE scope = ANY(%s) UNION SELECT es.id FROM entry_scopes es JOIN entries e USING (id) "
             "WHERE es.scope = ANY(%s) AND e.scope IS NOT NULL) s)", (scopes, scopes))),
        "note": "ranking_summary's total, exact: universal entries (index-only on idx_entries_scope) + this "
                "project's scoped ones"}
    keyword = _find(recorded, "SELECT id, ts_rank_cd")
    if keyword:
        query, limit = keyword["params"]
        terms = query.split(" | ")
        common = common_terms(url)
        rare = [t for t in terms if t not in common]
        found["keyword_as_sent"] = {**_brief(explain(url, keyword["sql"], keyword["params"])),
                                    "note": f"{len(terms)} terms: {query[:200]}"}
        found["keyword_without_common_terms"] = {
            **_brief(explain(url, keyword["sql"], (" | ".join(rare) or terms[0], limit))),
            "note": f"drops {sorted(set(terms) & set(common))} (in > {COMMON_TERM_FREQUENCY:.0%} of entries "
                    f"per pg_stats); {len(rare)} terms left"}
        rarer = [t for t in terms if t not in common_terms(url, 0.005)]
        found["keyword_without_terms_over_half_percent"] = {
            **_brief(explain(url, keyword["sql"], (" | ".join(rarer) or terms[0], limit))),
            "note": f"the same with a 0.5 % threshold: {len(rarer)} terms left ({' | '.join(rarer)})"}
        candidates = _candidate_ids(url, recorded)
        found["keyword_within_candidates"] = {**_brief(explain(
            url, "SELECT id, ts_rank_cd(search, q) AS score FROM entries, to_tsquery('simple', %s) AS q "
                 "WHERE id = ANY(%s) AND search @@ q ORDER BY score DESC, seq LIMIT %s", (query, candidates, limit))),
            "note": f"ranks only the {len(candidates)} prominent and nearest candidates (finds no others)"}
        found["keyword_prefilter_5000"] = {**_brief(explain(
            url, "SELECT id, ts_rank_cd(search, q) AS score FROM (SELECT id, seq, search FROM entries, "
                 "to_tsquery('simple', %s) AS q0 WHERE search @@ q0 LIMIT 5000) m, to_tsquery('simple', %s) AS q "
                 "ORDER BY score DESC, seq LIMIT %s", (query, query, limit))),
            "note": "ranks at most 5,000 matches (the first found, not the best: loses recall)"}
    nearest = _find(recorded, "SELECT id, 1 - (embedding::vector")
    if nearest:
        for ef in (40, 100, 200, 400):
            found[f"hnsw_ef_search_{ef}"] = {**_brief(explain(url, nearest["sql"], nearest["params"],
                                                              (f"SET LOCAL hnsw.ef_search = {ef}",))),
                                             "note": f"nearest {nearest['params'][-1]} with ef_search {ef}"}
    return found


def _candidate_ids(url: str, recorded: list[dict]) -> list[str]:
    """The ids the recorded prominent and nearest statements return."""
    import psycopg

    ids: list[str] = []
    with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        conn.execute("SET LOCAL hnsw.ef_search = 200")
        for start in ("(SELECT id, category", "SELECT id, 1 - (embedding::vector"):
            statement = _find(recorded, start)
            if statement:
                ids += [r[0] for r in conn.execute(statement["sql"], statement["params"]).fetchall()]
    return list(dict.fromkeys(ids))


def _brief(explained: dict) -> dict:
    return {"execution_ms": explained["execution_ms"], "top": explained["top"][:100], "plan": explained["plan"]}
