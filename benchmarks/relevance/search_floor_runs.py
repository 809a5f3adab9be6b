"""What `search` returns on every relevance set, with each result's raw signals (see search_floor.py): the sets
stored as the product stores them, on SQLite or on a throwaway PostgreSQL, searched with the model and without."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import shutil
from contextlib import contextmanager, nullcontext
from pathlib import Path

from benchmarks.common.paths import DATA
from benchmarks.relevance.corpus_store import build_store
from benchmarks.relevance.search_floor_choice import PATHS
from benchmarks.relevance.signals import context_query

NONSENSE = DATA / "nonsense_queries.json"
LIMIT = 10
"""`iflow-memory search`'s default --limit: recall is measured over what a user sees."""
DATABASE_URL_ENV = "IFLOW_MEMORY_DATABASE_URL"


def nonsense_queries(path: Path = NONSENSE) -> list[str]:
    """The nonsense and off-topic queries."""
    return [item["query"] for item in json.loads(path.read_text(encoding="utf-8"))["queries"]]


def searches(container) -> dict:
    """The product's search use case per search path: with the store's model, and keywords only."""
    plan = container.embedding_plan(want_target=False)
    index = container.vector_index(dimensions=plan.query.dimensions)
    return {"model": container.retrieve(embedder=plan.query, vector_index=index),
            "keywords": container.retrieve(embedder=None, vector_index=None, embedder_problem="keywords only")}


def results_of(search, text: str, hidden: frozenset = frozenset()) -> list[tuple[str, dict]]:
    """(entry id, raw signals) of the first LIMIT results, best first. Entries a query was built from (`hidden`)
    are asked for on top and dropped, so the query still gets LIMIT others."""
    found = search.search(text, LIMIT + len(hidden)).selected
    return [(r.entry.id, dict(r.signals)) for r in found if r.entry.id not in hidden][:LIMIT]


def measure_set(relevance_set, store_dir: str) -> tuple[dict, dict]:
    """Per search path: for each judged query its results' (grade, signals) and how many entries are relevant;
    for the set's unanswerable queries and the nonsense set, each query's results' signals."""
    from memory_apps.config import MemoryConfig
    from memory_apps.wiring.container import build_container

    container = build_container(MemoryConfig(embedding_provider="local"), store_dir)
    ids = {key: draft.entry_id for key, draft in relevance_set.drafts.items()}
    judged, empty = {}, {}
    try:
        for path, search in searches(container).items():
            rows = []
            for q in relevance_set.queries:
                relevant = {ids[k]: g for k, g in q.relevant.items()}
                found = results_of(search, context_query(q.session), frozenset(ids[k] for k in q.hidden))
                rows.append({"results": [(relevant.get(i, 0), s) for i, s in found], "relevant": len(relevant)})
            judged[path] = rows
            empty[path] = {"unanswerable": [[s for _, s in results_of(search, context_query(q.session))]
                                            for q in relevance_set.unanswerable],
                           "nonsense": [[s for _, s in results_of(search, t)] for t in nonsense_queries()]}
    finally:
        container.store().close()
    return judged, empty


@contextmanager
def on_database(url: str):
    """The product's stores opened meanwhile live in the PostgreSQL database at `url`."""
    os.environ[DATABASE_URL_ENV] = url
    try:
        yield
    finally:
        os.environ.pop(DATABASE_URL_ENV, None)


def measure_sets(sets, workdir: str, postgres: bool = False) -> tuple[dict, dict]:
    """measure_set for every set, by search path and set name; sets over the same entries (the real bank's three)
    share one store. With `postgres`, each store is a database on a throwaway pgserver."""
    judged: dict = {path: {} for path in PATHS}
    empty: dict = {path: {} for path in PATHS}
    server = PgServer() if postgres else None
    try:
        built: dict = {}
        for relevance_set in sets:
            key = tuple(sorted(relevance_set.drafts))
            if key not in built:
                url = server.recreate(f"search_floor_{len(built)}") if server else None
                with on_database(url) if url else nullcontext():
                    built[key] = (build_store(relevance_set, tempfile.mkdtemp(dir=workdir)).store_dir, url)
            with on_database(built[key][1]) if server else nullcontext():
                found, nothing = measure_set(relevance_set, built[key][0])
            for path in PATHS:
                judged[path][relevance_set.name] = found[path]
                empty[path][relevance_set.name] = nothing[path]
            print(f"{relevance_set.name} ({'postgresql' if server else 'sqlite'}): {len(relevance_set.queries)} "
                  f"queries", file=sys.stderr)
    finally:
        if server is not None:
            server.stop()
    return judged, empty


class PgServer:
    """A throwaway pgserver (bundled PostgreSQL + pgvector, as the tests run it), databases made on demand."""

    def __init__(self) -> None:
        import pgserver

        # its own top-level directory, as the tests do: as root pgserver runs the server as another user
        self._dir = tempfile.mkdtemp(prefix="iflow-pg-")
        self._server = pgserver.get_server(self._dir, cleanup_mode="stop")

    def recreate(self, name: str) -> str:
        """A new empty database's URL."""
        import psycopg

        with psycopg.connect(self._server.get_uri(), autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            conn.execute(f"CREATE DATABASE {name}")
        return self._server.get_uri(name)

    def stop(self) -> None:
        """Stop the server and remove its directory."""
        self._server.cleanup()
        shutil.rmtree(self._dir, ignore_errors=True)
