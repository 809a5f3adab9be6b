"""Warm searches at one size: `MemoryService.search` and the MCP `search_memory` tool on one long-lived
service (local model kept), new queries each call; against a floor measured in the same run (PostgreSQL: the
query embedding plus one HNSW nearest-200 query; SQLite: the embedding plus one matrix product, as
the `latency` section measures it)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from benchmarks.common.prose import queries
from benchmarks.common.stats import latency, ratio
from benchmarks.common.timer import time_ms, timed_calls
from benchmarks.latency.passes import LIMIT, mcp_calls
from benchmarks.latency.passes import floor as sqlite_floor
from benchmarks.postgres.sessions import _set_url


def warm_search(project: Path, store: Path, url: Optional[str], calls: int, model) -> dict:
    """Median and p95 of `calls` searches through the service and through the MCP tool, and the floor."""
    from memory_apps.service import MemoryService

    texts, mcp_texts = queries(calls, 7), queries(calls, 8)
    _set_url(url)
    try:
        warm_ms, service = time_ms(lambda: MemoryService(global_store=str(store), project_root=str(project)))
        first_ms, first = time_ms(lambda: service.search("warm up the service with one search", limit=LIMIT))
        if not first.vector.ran or not first.keyword.ran:
            raise RuntimeError(f"a signal did not run: vector {first.vector}, keyword {first.keyword}")
        result = {"construct_ms": round(warm_ms, 1), "first_search_ms": round(first_ms, 1),
                  "service": latency(timed_calls(lambda q: service.search(q, limit=LIMIT), texts))}
        result["service_repeated"] = latency(timed_calls(lambda q: service.search(q, limit=LIMIT), texts))
        mcp = mcp_calls(service, mcp_texts)
        result["mcp"] = latency(mcp) if mcp else None
    finally:
        _set_url(None)
    result["floor"] = _pg_floor(url, model, texts) if url else sqlite_floor(model, store, texts)
    result["ratio_to_floor"] = ratio(result["service"]["median_ms"], result["floor"]["median_ms"])
    return result


def _pg_floor(url: str, model, texts) -> dict:
    """Per query: the embedding plus the store's own HNSW nearest-200 query (one round trip)."""
    from memory_adapters.store.postgres.store import PostgresEntryStore

    store = PostgresEntryStore(url)
    try:
        def one(text: str) -> None:
            store.nearest(model.embed_query(text), 200)

        one("warm up")
        return {**latency(timed_calls(one, texts)), "what": "embed + HNSW nearest 200"}
    finally:
        store.close()
