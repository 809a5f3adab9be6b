"""Benchmarks: spec 001 AC9a (local computation at 10k entries) and whole-process injector time.

Run: .venv/bin/python benchmarks/run.py [--entries 10000] [--repeat 5]
Prints a table of medians; nothing here runs in the test suite.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

from memory_adapters.numpy_vector_index import NumpyVectorIndex, to_bytes  # noqa: E402
from memory_adapters.sqlite_store import SqliteEntryStore  # noqa: E402
from memory_adapters.system_clock import SystemClock  # noqa: E402
from memory_core.legacy import render_block  # noqa: E402
from memory_core.models import CATEGORIES, EntryDraft  # noqa: E402
from memory_core.rendering import render_entry  # noqa: E402
from memory_core.scoring import Weights  # noqa: E402
from memory_core.selection import group_by_category  # noqa: E402
from memory_core.space import EmbeddingSpace, pin_space  # noqa: E402
from memory_core.usecases.retrieve import RetrieveAndRank  # noqa: E402

DIMS = 768
WORDS = "parser deploy sqlite review cache retry schema migration token hook test rollback index query".split()


class FixedQueryEmbedder:
    """Stands in for a provider: returns one pre-computed unit vector (no network)."""

    provider_name, model_name, dimensions = "bench", "random-768", DIMS

    def __init__(self, vector: np.ndarray) -> None:
        self._vector = vector.tolist()

    def embed_query(self, text: str) -> list[float]:
        return self._vector

    def embed_documents(self, texts):
        return [self._vector for _ in texts]


def build_database(path: str, count: int, rng: random.Random) -> None:
    """Fill a store with `count` entries and random unit vectors (mock embeddings, AC9a)."""
    store = SqliteEntryStore(path)
    now = datetime.now(timezone.utc)
    matrix = np.random.default_rng(7).standard_normal((count, DIMS)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    conn = store._conn  # bulk load in one transaction; the public API commits per entry
    conn.execute("BEGIN")
    for i in range(count):
        words = " ".join(rng.choice(WORDS) for _ in range(12))
        draft = EntryDraft(name=f"Entry {i}", description=f"Learning {i}: {words}", category=CATEGORIES[i % 3],
                           keywords=rng.sample(WORDS, 4))
        conn.execute(
            'INSERT INTO entries (id, name, description, reasoning, category, keywords, "references", '
            "observation_count, confidence, recall_count, created_at, updated_at, source, embedding) "
            "VALUES (?, ?, ?, '', ?, ?, '[]', ?, 'medium', 0, ?, ?, 'manual', ?)",
            (draft.entry_id, draft.name, draft.description, draft.category, str(draft.keywords).replace("'", '"'),
             rng.randint(1, 5), now.isoformat(), now.isoformat(), to_bytes(matrix[i])),
        )
    conn.execute("COMMIT")
    pin_space(store, EmbeddingSpace("bench", "random-768", DIMS))
    store.close()


def time_it(fn, repeat: int) -> float:
    """Median wall time of fn() in milliseconds."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main() -> None:
    """Build a 10k-entry database and print the timing table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(11)
    workdir = tempfile.mkdtemp(prefix="iflow-bench-")
    db = os.path.join(workdir, "memory.db")
    build_database(db, args.entries, rng)
    store = SqliteEntryStore(db)
    query = np.random.default_rng(3).standard_normal(DIMS).astype(np.float32)
    query /= np.linalg.norm(query)
    embedder = FixedQueryEmbedder(query)
    index = NumpyVectorIndex(store, DIMS)
    use_case = RetrieveAndRank(store, SystemClock(), Weights(), store, embedder, index)
    context = "csv-importer: parse uploaded files. Phase: design. Files: src/parser.py"

    def local_pipeline() -> str:
        result = use_case.run(context, 20)
        groups = group_by_category(result.selected, lambda r: r.entry.category)
        return render_block([(c, [render_entry(r.entry) for r in m]) for c, m in groups], "*diag*")

    rows = [
        ("vector search (load + matmul)", time_it(lambda: index.similarities(query.tolist()), args.repeat)),
        ("keyword search (FTS5 bm25)", time_it(lambda: store.keyword_search("parser OR sqlite OR design", 500), args.repeat)),
        ("load all entries", time_it(store.all_entries, args.repeat)),
        ("AC9a: search + scoring + formatting", time_it(local_pipeline, args.repeat)),
    ]
    env = dict(os.environ, HOME=workdir)
    project = os.path.join(workdir, "project")
    os.makedirs(project, exist_ok=True)
    command = [sys.executable, "-m", "memory_apps.injector", "--project-root", project, "--limit", "20",
               "--global-store", workdir]
    rows.append(("whole injector process (no embedder)",
                 time_it(lambda: subprocess.run(command, env=env, capture_output=True, check=True), args.repeat)))
    rows.append(("python -c pass (process floor)",
                 time_it(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True), args.repeat)))
    print(f"\n{args.entries} entries x {DIMS} dims, median of {args.repeat} runs\n")
    print(f"| {'measurement':<40} | {'ms':>9} |")
    print(f"|{'-' * 42}|{'-' * 11}|")
    for name, ms in rows:
        print(f"| {name:<40} | {ms:>9.1f} |")
    print("\nAC9a target: < 100 ms for search + scoring + formatting.")


if __name__ == "__main__":
    main()
