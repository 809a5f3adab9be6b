"""Warm search latency (issue 12): `MemoryService.search` and the MCP `search_memory` tool, called in process on
a long-lived service, at 1k and 10k entries, with the bundled local embedder (all-MiniLM-L6-v2 int8, 384 dims).

    .venv/bin/python benchmarks/search_latency.py [--entries 10000] [--calls 50] [--keep]
    .venv/bin/python benchmarks/search_latency.py --src /tmp/old/src --out /tmp/old.json   # another checkout

The stores are synthetic: entry texts drawn word by word from the repository's own prose (README and ADRs,
with their word frequencies) at the lengths of the real knowledge bank (title ~6 words, description ~25,
reasoning ~55, 3-6 keywords); vectors are real model embeddings of 256 such texts, each entry a noisy copy of
one (cosine ~0.9), stored in the pinned local space with the flat vector cache written. One service per size
is warmed with one search, then `--calls` different queries are timed (median, p95), then the same queries
again, then `--calls` others through the MCP tool. A last pass times the parts by wrapping the adapters' methods,
and a floor is measured in the same run: the query embedding alone plus one matrix-vector product over the
stored matrix. The report says how many cores other processes kept busy meanwhile: on a shared 2-core machine
numbers are only comparable between runs where that is near 0. Prints markdown tables; writes
benchmarks/results/search_latency.json. Not part of benchmarks/run.py; nothing here runs in the test suite.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable, Optional, Sequence

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "search_latency.json"
LOCAL_SPACE = ("local", "all-MiniLM-L6-v2-int8", 384)
LIMIT = 10
POOL = 256  # texts really embedded; every entry's vector is a noisy copy of one of them
CATEGORIES = ("anti-patterns", "heuristics", "patterns")


# ----------------------------------------------------------------------------------------------- text
def word_model() -> tuple[list[str], np.ndarray]:
    """The words of the repository's prose and their probabilities (a unigram model of real text)."""
    sources = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    words = Counter(w for path in sources if path.is_file()
                    for w in re.findall(r"[a-z][a-z'-]{1,20}", path.read_text(encoding="utf-8").lower()))
    vocab = sorted(words)
    counts = np.array([words[w] for w in vocab], dtype=np.float64)
    return vocab, counts / counts.sum()


class Prose:
    """Sentences of `n` words sampled from the word model."""

    def __init__(self, seed: int) -> None:
        self.vocab, self.p = word_model()
        self.rng = np.random.default_rng(seed)

    def words(self, low: int, high: int) -> list[str]:
        return [self.vocab[i] for i in self.rng.choice(len(self.vocab), int(self.rng.integers(low, high)), p=self.p)]

    def text(self, low: int, high: int) -> str:
        return " ".join(self.words(low, high)).capitalize() + "."


def queries(count: int, seed: int) -> list[str]:
    """`count` distinct search queries of 5-14 words, the way an agent phrases a lookup."""
    prose = Prose(seed)
    return [" ".join(prose.words(5, 15)) for _ in range(count)]


# ---------------------------------------------------------------------------------------------- store
def vector_pool(embedder) -> np.ndarray:
    """Real model embeddings of POOL entry-length texts."""
    prose = Prose(seed=POOL)
    return np.asarray(embedder.embed_documents([prose.text(40, 90) for _ in range(POOL)]), dtype=np.float64)


def build_store(store_dir: Path, project: Path, count: int, pool: np.ndarray) -> dict:
    """Schema from SqliteEntryStore, `count` rows in one transaction, local space pinned, vector cache written."""
    from memory_adapters.numpy_vector_index import NumpyVectorIndex
    from memory_adapters.sqlite_store import SqliteEntryStore
    from memory_core.hashing import content_hash

    started = time.perf_counter()
    db = store_dir / "memory.db"
    store_dir.mkdir(parents=True, exist_ok=True)
    SqliteEntryStore(str(db)).close()
    prose = Prose(seed=count)
    rng = np.random.default_rng(count + 1)
    source = rng.integers(0, POOL, count)
    noise = rng.standard_normal((count, LOCAL_SPACE[2])) * (0.5 / np.sqrt(LOCAL_SPACE[2]))
    matrix = pool[source] + noise
    matrix = (matrix / np.linalg.norm(matrix, axis=1, keepdims=True)).astype("<f4")
    now = datetime.now(timezone.utc)
    rows, seen = [], set()
    for i in range(count):
        description = prose.text(15, 36)
        if content_hash(description) in seen:
            continue
        seen.add(content_hash(description))
        stamp = (now - timedelta(days=int(rng.integers(0, 365)))).strftime("%Y-%m-%dT%H:%M:%SZ")
        rows.append((content_hash(description), prose.text(3, 9).rstrip("."), description, prose.text(30, 80),
                     CATEGORIES[i % 3], json.dumps(sorted(set(prose.words(3, 7)))), "[]", int(rng.integers(1, 9)),
                     ("high", "medium", "low")[i % 3], int(rng.integers(0, 6)), stamp, stamp, "retro", None,
                     matrix[i].tobytes()))
    conn = sqlite3.connect(str(db), isolation_level=None)
    conn.execute("BEGIN")
    conn.executemany('INSERT INTO entries (id, name, description, reasoning, category, keywords, "references", '
                     "observation_count, confidence, recall_count, created_at, updated_at, source, source_project, "
                     "embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    meta = [("embedding_provider", LOCAL_SPACE[0]), ("embedding_model", LOCAL_SPACE[1]),
            ("embedding_dimensions", str(LOCAL_SPACE[2])), (f"imported:{project}", "2026-01-01T00:00:00Z")]
    conn.executemany("INSERT INTO _metadata(key, value) VALUES (?, ?) "
                     "ON CONFLICT(key) DO UPDATE SET value = excluded.value", meta)
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    store = SqliteEntryStore(str(db))
    NumpyVectorIndex(store, LOCAL_SPACE[2], cache_path=str(db) + ".vectors").refresh()
    store.close()
    return {"entries": len(rows), "build_s": round(time.perf_counter() - started, 1),
            "db_mb": round(db.stat().st_size / 2**20, 1)}


def make_project(root: Path) -> Path:
    """A git repository with one commit, so the project identity is the real lookup (`git rev-list`)."""
    import subprocess

    root.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@b"}
    for command in (["git", "init", "-q"], ["git", "commit", "-q", "--allow-empty", "-m", "start"]):
        subprocess.run(command, cwd=root, env=env, check=True, capture_output=True)
    return root


# -------------------------------------------------------------------------------------------- timing
def percentile(samples: Sequence[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def stats(samples: Sequence[float]) -> dict:
    return {"median_ms": round(statistics.median(samples), 2), "p95_ms": round(percentile(samples, 0.95), 2),
            "min_ms": round(min(samples), 2), "max_ms": round(max(samples), 2)}


def timed_calls(call: Callable[[str], object], texts: Sequence[str]) -> list[float]:
    gc.collect()
    samples = []
    for text in texts:
        start = time.perf_counter()
        call(text)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


_INHERITED = object()


class Parts:
    """Wraps methods in place to add up the time spent in them per call (undone by `restore`)."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = defaultdict(float)
        self._undo: list[tuple[object, str, object]] = []

    def wrap(self, owner: object, name: str, label: str) -> None:
        original = getattr(owner, name, None)
        if original is None:
            return
        spent = self.spent

        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                spent[label] += (time.perf_counter() - start) * 1000

        self._undo.append((owner, name, vars(owner).get(name, _INHERITED)))
        setattr(owner, name, wrapper)

    def restore(self) -> None:
        for owner, name, original in reversed(self._undo):
            if original is _INHERITED:
                delattr(owner, name)
            else:
                setattr(owner, name, original)
        self._undo.clear()


PART_LABELS = {
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


def breakdown(service, texts: Sequence[str]) -> dict:
    """Median ms per call of each part of `service.search`, timed by wrapping the methods that do the work."""
    import memory_apps.service as service_module
    import memory_core.usecases.retrieve as retrieve_module
    from memory_adapters.numpy_vector_index import NumpyVectorIndex
    from memory_adapters.sqlite_store import SqliteEntryStore
    from memory_core.embedding import NormalisingEmbedder

    parts = Parts()
    for owner, name, label in ((NormalisingEmbedder, "embed_query", "embed"),
                               (NumpyVectorIndex, "_matrix", "vectors_load"),
                               (NumpyVectorIndex, "similarities", "similarities"),
                               (SqliteEntryStore, "ranking_stats", "ranking_stats"),
                               (SqliteEntryStore, "keyword_search", "keyword"),
                               (SqliteEntryStore, "get_many", "get_many"),
                               (SqliteEntryStore, "get_metadata", "metadata"),
                               (retrieve_module, "final_scores", "final_scores"),
                               (retrieve_module, "scores_with_prominence", "final_scores"),
                               (service_module, "project_scopes", "scopes")):
        parts.wrap(owner, name, label)
    per_call: dict[str, list[float]] = defaultdict(list)
    try:
        for text in texts:
            parts.spent.clear()
            start = time.perf_counter()
            service.search(text, limit=LIMIT)
            total = (time.perf_counter() - start) * 1000
            inner = sum(v for k, v in parts.spent.items() if k != "vectors_load")
            for key in PART_LABELS:
                per_call[key].append(total - inner if key == "other" else parts.spent.get(key, 0.0))
            per_call["total"].append(total)
    finally:
        parts.restore()
    return {key: round(statistics.median(values), 2) for key, values in per_call.items()}


def floor(embedder, store_dir: Path, texts: Sequence[str]) -> dict:
    """Per query: the embedding alone plus one matrix-vector product over every stored vector, with numpy's
    `matrix @ vector` (OpenBLAS, every core) and with `np.einsum` (one core); the floor is the faster."""
    from memory_adapters.numpy_vector_index import NumpyVectorIndex
    from memory_adapters.sqlite_store import SqliteEntryStore

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
        measured[name] = stats(timed_calls(one, texts))
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


# -------------------------------------------------------------------------------------------- report
def busy_seconds() -> Optional[tuple[float, float]]:
    """(CPU seconds every process has used since boot, CPU seconds this process has used), or None."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except (OSError, IndexError):
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    idle = int(fields[3]) + int(fields[4])  # idle + iowait
    own = os.times()
    return (sum(int(f) for f in fields[:8]) - idle) / ticks, own.user + own.system


def others_cores(start: Optional[tuple[float, float]], wall_s: float) -> Optional[float]:
    """How many cores other processes kept busy on average since `start` (the load this run competed with)."""
    end = busy_seconds()
    if start is None or end is None or wall_s <= 0:
        return None
    return round(max(0.0, (end[0] - start[0]) - (end[1] - start[1])) / wall_s, 2)


def measure(size: int, workdir: Path, calls: int, embedder, pool: np.ndarray) -> dict:
    from memory_apps.service import MemoryService

    project = make_project(workdir / f"project-{size}")
    store_dir = workdir / f"store-{size}"
    built = build_store(store_dir, project, size, pool)
    print(f"[search_latency] {size} entries built in {built['build_s']} s", file=sys.stderr, flush=True)
    texts, mcp_texts, part_texts = (queries(calls, seed) for seed in (7, 8, 9))  # no pass repeats another's query
    started = time.perf_counter()
    service = MemoryService(global_store=str(store_dir), project_root=str(project))
    first = service.search("warm up the service with one search", limit=LIMIT)
    warm_ms = (time.perf_counter() - started) * 1000
    if not first.vector.ran or not first.keyword.ran:
        raise RuntimeError(f"a signal did not run: vector {first.vector}, keyword {first.keyword}")
    result = {"store": built, "construct_and_first_search_ms": round(warm_ms, 1)}
    result["service"] = stats(timed_calls(lambda q: service.search(q, limit=LIMIT), texts))
    result["service_repeated_queries"] = stats(timed_calls(lambda q: service.search(q, limit=LIMIT), texts))
    mcp = mcp_calls(service, mcp_texts)
    result["mcp"] = stats(mcp) if mcp else None
    result["breakdown_ms"] = breakdown(service, part_texts)
    result["floor"] = floor(embedder, store_dir, texts)
    result["ratio_to_floor"] = round(result["service"]["median_ms"] / result["floor"]["median_ms"], 2)
    return result


def render(results: dict) -> str:
    sizes = list(results["sizes"])
    lines = ["## Warm search latency (ms per call, limit 10)", "",
             "| entries | MemoryService.search median | p95 | MCP search_memory median | p95 | floor median | "
             "ratio to floor | same queries again: median | p95 |", "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for size in sizes:
        r = results["sizes"][size]
        mcp = r["mcp"] or {"median_ms": "-", "p95_ms": "-"}
        lines.append(f"| {size} | {r['service']['median_ms']} | {r['service']['p95_ms']} | {mcp['median_ms']} | "
                     f"{mcp['p95_ms']} | {r['floor']['median_ms']} | {r['ratio_to_floor']} | "
                     f"{r['service_repeated_queries']['median_ms']} | {r['service_repeated_queries']['p95_ms']} |")
    lines += ["", "## Breakdown of MemoryService.search (median ms per call, separate instrumented pass)", "",
              "| part | " + " | ".join(f"{s} entries" for s in sizes) + " |",
              "|---|" + "---:|" * len(sizes)]
    for key, label in [*PART_LABELS.items(), ("total", "total (instrumented)")]:
        lines.append(f"| {label} | " + " | ".join(str(results["sizes"][s]["breakdown_ms"].get(key, "-"))
                                                  for s in sizes) + " |")
    machine = results["machine"]
    lines += ["", "Each pass searches different queries, except 'same queries again' (the first pass's, repeated). "
                  "Floor: the query embedding alone plus one matrix-vector product over the stored matrix (the faster "
                  "of `matrix @ vector` and `np.einsum`). "
                  f"Source: {results['src']}. {machine['cores']} cores; load average {machine['loadavg_before']} "
                  f"before, {machine['loadavg_after']} after; other processes kept {machine['others_cores']} "
                  "cores busy on average during the run (0 on an idle machine)."]
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=10_000, help="the larger store (1000 is always measured)")
    parser.add_argument("--calls", type=int, default=50, help="timed searches per size")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument("--src", default=str(ROOT / "src"), help="the code to measure (another checkout's src)")
    parser.add_argument("--out", default=str(RESULTS), help="where the JSON results go")
    args = parser.parse_args(argv)
    sys.path.insert(0, os.path.abspath(args.src))
    from memory_adapters.local_embedder import LocalOnnxEmbedder
    from memory_core.embedding import NormalisingEmbedder

    workdir = Path(tempfile.mkdtemp(prefix="iflow-search-latency-"))
    os.environ["HOME"] = str(workdir / "home")  # nothing touches the real ~/.claude
    os.environ["GIT_CEILING_DIRECTORIES"] = str(workdir)
    embedder = NormalisingEmbedder(LocalOnnxEmbedder())
    started, busy_at_start = time.perf_counter(), busy_seconds()
    results: dict = {"machine": {"loadavg_before": [round(x, 2) for x in os.getloadavg()],
                                 "cores": len(os.sched_getaffinity(0)), "python": sys.version.split()[0]},
                     "calls": args.calls, "limit": LIMIT, "src": os.path.abspath(args.src), "sizes": {}}
    try:
        pool = vector_pool(embedder)
        for size in sorted({1000, args.entries}):
            results["sizes"][size] = measure(size, workdir, args.calls, embedder, pool)
    finally:
        if not args.keep:
            import shutil

            shutil.rmtree(workdir, ignore_errors=True)
        else:
            print(f"[search_latency] kept {workdir}", file=sys.stderr)
    results["machine"]["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
    results["machine"]["others_cores"] = others_cores(busy_at_start, time.perf_counter() - started)
    print(render(results))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
