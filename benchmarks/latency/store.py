"""A store per size: entries written in the product's schema from the prose model, each vector a noisy copy (cosine
~0.9) of one of the pool's real embeddings, in the pinned local space; and a git project beside it."""

from __future__ import annotations

import json
import os
import subprocess
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

from benchmarks.common.prose import POOL, Prose
from benchmarks.common.store import CATEGORIES, LOCAL_SPACE, size_mb, write_store


def build_store(store_dir: Path, project: Path, count: int, pool: np.ndarray) -> dict:
    """`count` rows in one transaction, local space pinned, `project` marked as imported, vector cache written."""
    from memory_core.entries.hashing import content_hash

    started = time.perf_counter()
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
    write_store(store_dir / "memory.db", rows, LOCAL_SPACE, [project])
    return {"entries": len(rows), "build_s": round(time.perf_counter() - started, 1),
            "db_mb": size_mb(store_dir / "memory.db")}


def make_project(root: Path) -> Path:
    """A git repository with one commit, so the project identity is the real lookup (`git rev-list`)."""
    root.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@b"}
    for command in (["git", "init", "-q"], ["git", "commit", "-q", "--allow-empty", "-m", "start"]):
        subprocess.run(command, cwd=root, env=env, check=True, capture_output=True)
    return root
