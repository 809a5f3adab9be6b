"""The timed passes over a warm service: the parts of `MemoryService.search` (its adapters' methods wrapped by the
shared timer), the floor, and the MCP tool."""

from __future__ import annotations

import gc
import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from benchmarks.common.stats import latency
from benchmarks.common.store import LOCAL_SPACE
from benchmarks.common.timer import PhaseTimer, time_ms, timed_calls

LIMIT = 10
PART_LABELS = {  # the keys are keys of results/latency.json
    "embed": "query embedding (model + normalising)",
    "vectors_load": "loading the vector matrix (cache file / store)",
    "similarities": "vector similarities (incl. loading)",
    "ranking_stats": "ranking_stats (SQL + tuples)",
    "keyword": "FTS5 keyword search",
    "final_scores": "scores (core: final_scores, or scores_with_prominence in a search)",
    "get_many": "get_many (rows -> Entry)",
    "metadata": "metadata reads (pinned space)",
    "scopes": "project scopes (identity lookup)",
    "other": "everything else (plan, wiring, filtering, sorting, Retrieval)",
}
_S = "memory_adapters.store.sqlite.store:SqliteEntryStore."
_N = "memory_adapters.vectors.numpy_vector_index:NumpyVectorIndex."
PARTS = (("memory_core.embedding.normalising:NormalisingEmbedder.embed_query", "embed"), (_N + "_matrix", "vectors_load"),
         (_N + "similarities", "similarities"), (_S + "ranking_stats", "ranking_stats"),
         (_S + "keyword_search", "keyword"), (_S + "get_many", "get_many"), (_S + "get_metadata", "metadata"),
         ("memory_core.usecases.retrieve:final_scores", "final_scores"),
         ("memory_core.usecases.retrieve:scores_with_prominence", "final_scores"),
         ("memory_apps.service:project_scopes", "scopes"))


def breakdown(service, texts: Sequence[str], strict: bool = True) -> tuple[dict, list[str]]:
    """Median ms per call of each part of `service.search`, timed by wrapping the methods that do the work; and
    the wrapped methods that did not exist (always none when `strict`: a missing one raises)."""
    timer = PhaseTimer(strict, "PARTS in benchmarks/latency/passes.py (--allow-missing-parts times an older --src)")
    per_call: dict[str, list[float]] = defaultdict(list)
    try:
        timer.wrap_all(PARTS)
        for text in texts:
            timer.clear()
            total, _ = time_ms(lambda: service.search(text, limit=LIMIT))
            inner = sum(v for k, v in timer.inclusive.items() if k != "vectors_load")  # inside similarities
            for key in PART_LABELS:
                per_call[key].append(total - inner if key == "other" else timer.inclusive.get(key, 0.0))
            per_call["total"].append(total)
    finally:
        timer.restore()
    return {key: round(statistics.median(values), 2) for key, values in per_call.items()}, timer.missing


def floor(embedder, store_dir: Path, texts: Sequence[str]) -> dict:
    """Per query: the embedding alone plus one matrix-vector product over every stored vector, with numpy's
    `matrix @ vector` (OpenBLAS, every core) and with `np.einsum` (one core); the floor is the faster."""
    from memory_adapters.vectors.numpy_vector_index import NumpyVectorIndex
    from memory_adapters.store.sqlite.store import SqliteEntryStore

    store = SqliteEntryStore(str(store_dir / "memory.db"))
    index = NumpyVectorIndex(store, LOCAL_SPACE[2], cache_path=str(store_dir / "memory.db") + ".vectors")
    _, matrix = index._matrix()
    store.close()
    products = {"matmul": lambda vector: matrix @ vector, "einsum": lambda vector: np.einsum("ij,j->i", matrix, vector)}
    measured = {}
    for name, product in products.items():
        def one(text: str) -> None:
            product(np.asarray(embedder.embed_query(text), dtype=np.float32))

        one("warm up")
        measured[name] = latency(timed_calls(one, texts))
    best = min(measured, key=lambda name: measured[name]["median_ms"])
    return {**measured[best], "product": best, "by_product": measured}


def mcp_calls(service, texts: Sequence[str]) -> Optional[list[float]]:
    """The `search_memory` tool through MCPServer.call_tool in one event loop (no stdio); None without mcp."""
    try:
        import anyio

        from memory_apps.mcp_server import build_server
    except ImportError:
        return None
    server = build_server(service)

    async def run() -> list[float]:
        await server.call_tool("search_memory", {"query": "warm up the tool", "limit": LIMIT})
        gc.collect()
        samples = []
        for text in texts:
            start = time.perf_counter()
            result = await server.call_tool("search_memory", {"query": text, "limit": LIMIT})
            samples.append((time.perf_counter() - start) * 1000)
            if getattr(result, "is_error", False):
                raise RuntimeError(f"search_memory failed: {result}")
        return samples

    return anyio.run(run)
