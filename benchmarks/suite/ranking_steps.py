"""The steps of `RetrieveAndRank.run` as section 2 times them alone: the same adapter and core functions `run()`
calls, on the same inputs."""

from __future__ import annotations

import gc
import sqlite3
from contextlib import contextmanager
from operator import attrgetter
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

from benchmarks.suite.constants import LIMIT

STATS_COLUMNS = "id, category, observation_count, confidence, recall_count, updated_at, created_at"
STATS_SQL = (f"SELECT {STATS_COLUMNS}, embedding IS NOT NULL FROM entries ORDER BY rowid")  # what ranking_stats runs
SIDE_STATS_SQL = f"SELECT {STATS_COLUMNS}, has_vector FROM stats_only ORDER BY rowid"
Step = tuple[str, Callable[[], object]]


def without_gc(fn: Callable[[], object]) -> object:
    """Call `fn` with the cyclic garbage collector disabled."""
    gc.disable()
    try:
        return fn()
    finally:
        gc.enable()


def side_copy(db: Path) -> sqlite3.Connection:
    """The ranking columns copied into a table of their own (what ranking_stats would scan if the vectors
    lived in another table or file)."""
    conn = sqlite3.connect(str(db.with_name("stats-only.db")))
    conn.execute("ATTACH DATABASE ? AS main_db", (str(db),))
    conn.execute(f"CREATE TABLE stats_only AS SELECT {STATS_COLUMNS}, embedding IS NOT NULL AS has_vector "
                 "FROM main_db.entries ORDER BY rowid")
    conn.commit()
    conn.execute("DETACH DATABASE main_db")
    return conn


@contextmanager
def ranking_steps(db: Path, store, use_case, embedder, query: np.ndarray,
                  query_text: str) -> Iterator[tuple[list[Step], dict]]:
    """(label, call) for every step, and what the context matched; the inputs are computed once, after a first
    run that builds any vector cache the index keeps. Releases them (and the side copy) on exit."""
    from memory_adapters.system_clock import SystemClock
    from memory_apps.session.injection import render_semantic_block
    from memory_core.ranking.fts_query import sanitise_fts_query
    from memory_core.ranking.scoring import Weights, final_scores
    from memory_core.ranking.selection import select_by_scores
    from memory_core.usecases.retrieve import KEYWORD_CANDIDATES

    match = sanitise_fts_query(query_text)
    index = use_case._vector_index  # noqa: SLF001 - the index the apps wire (with its cache file, if any)
    side = side_copy(db)
    _vector_ran(use_case.run(query_text, LIMIT))
    stats = store.ranking_stats()
    vector_scores = index.similarities(embedder.embed_query(query_text))
    keyword_scores = store.keyword_search(match, KEYWORD_CANDIDATES)
    _, matrix = index._matrix()  # noqa: SLF001 - the in-memory matrix for the pure-numpy row
    now = SystemClock().now()

    def scoring():
        return final_scores(stats, vector_scores, keyword_scores, Weights(), now)

    def select(scores):
        return select_by_scores(stats, scores, attrgetter("id"), attrgetter("category"), LIMIT)

    scores, _ = scoring()

    def matmul_only():
        s = matrix @ query
        top = np.argpartition(-s, LIMIT)[:LIMIT]
        return top[np.argsort(-s[top])]

    chosen = select(scores)
    result = _vector_ran(use_case.run(query_text, LIMIT))

    def run_and_render():
        return render_semantic_block(use_case.run(query_text, LIMIT), 12_000)

    steps = [
        ("vector: SQLite BLOB read (`store.vectors()`)", lambda: store.vectors()),
        ("vector: SQLite BLOBs -> matrix (`NumpyVectorIndex._from_store`)", index._from_store),  # noqa: SLF001
        ("vector: load as wired (`NumpyVectorIndex._matrix`)", lambda: index._matrix()),  # noqa: SLF001
        ("vector: load + matmul + {id: score} (`similarities`)",
         lambda: index.similarities(embedder.embed_query(query_text))),
        ("vector: matmul + top-20 on an in-memory matrix (numpy only)", matmul_only),
        ("keyword search (FTS5 bm25, 500 candidates)", lambda: store.keyword_search(match, KEYWORD_CANDIDATES)),
        ("stats load (`ranking_stats`)", store.ranking_stats),
        ("stats load: its SELECT alone (SQLite scan + fetch, no Python objects)",
         lambda: store.connection.read(STATS_SQL)),
        ("stats load: same SELECT on a copy of the columns without the vector BLOBs in the rows",
         lambda: side.execute(SIDE_STATS_SQL).fetchall()),
        ("scoring (`final_scores`)", scoring),
        ("selection (`select_by_scores`)", lambda: select(scores)),
        ("**ranking itself = scoring + selection**", lambda: select(scoring()[0])),
        ("fetch 20 selected (`get_many`)", lambda: store.get_many([s.id for s in chosen])),
        ("rendering (`render_semantic_block`)", lambda: render_semantic_block(result, 12_000)),
        ("**total: `RetrieveAndRank.run`**", lambda: use_case.run(query_text, LIMIT)),
        ("**total: run + render**", run_and_render),
        ("total: run + render with the garbage collector disabled", lambda: without_gc(run_and_render)),
    ]
    fts_total = store.connection.read(  # how many entries the context matches at all
        "SELECT COUNT(*) FROM entries_fts WHERE entries_fts MATCH ?", (match,))[0][0]
    try:
        yield steps, {"keyword_matches": len(keyword_scores), "fts_matches_total": fts_total}
    finally:
        side.close()


def _vector_ran(result):
    if not result.vector.ran:
        raise RuntimeError(f"vector signal did not run: {result.vector.reason}")
    return result
