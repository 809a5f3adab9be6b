"""Where things are and what the suite measures against."""

from __future__ import annotations

from benchmarks.common import paths, processes

ROOT, SRC, SHARED, KB_HEAD = paths.ROOT, paths.SRC, paths.SHARED, paths.BANK_HEAD
RESULTS = paths.RESULTS / "suite.json"
PY, LIMIT = processes.PY, processes.LIMIT

BENCH_SPACE = ("bench", "random-768", 768)  # AC9a: mock 768-dim vectors, stub query embedder
TARGETS = {"keyword": 1.5, "vector": 1.5, "full_local": 1.3, "ranking_ms": 10.0}
