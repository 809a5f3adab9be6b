"""Where things are and what the suite measures against."""

from __future__ import annotations

import sys

from benchmarks.common import paths

ROOT, SRC, SHARED, KB_HEAD = paths.ROOT, paths.SRC, paths.SHARED, paths.BANK_HEAD
RESULTS = paths.RESULTS / "suite.json"
PROCS = ROOT / "benchmarks" / "procs"  # the scripts run as subprocesses
PY = sys.executable

BENCH_SPACE = ("bench", "random-768", 768)  # AC9a: mock 768-dim vectors, stub query embedder
LIMIT = 20
TARGETS = {"keyword": 1.5, "vector": 1.5, "full_local": 1.3, "ranking_ms": 10.0}
SECRET_VARIABLES = ("GEMINI_API_KEY", "VOYAGE_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OLLAMA_HOST")
