"""Synthetic entries at any size, generated in chunks: text drawn word by word from the repository's own prose
(README and ADRs, with their word frequencies, so a few words are in nearly every entry and most are rare),
each entry's vector a noisy copy (cosine ~0.9) of one of POOL real embeddings of the local model, whose text
lends the entry some of its words; categories, observation counts (long tail), dates, recalls, users, and
about one entry in ten scoped to a project (one of those projects is the benchmark's own)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Iterator

import numpy as np

from benchmarks.common.prose import Prose
from benchmarks.common.store import CATEGORIES, LOCAL_SPACE

DIMS = LOCAL_SPACE[2]
CHUNK = 20_000
PROJECTS = 50
USERS = ("ana", "ben", "chen", "dara", "eli", "fay", "gus", "hana")
SOURCES = ("retro", "session-capture", "manual", "import")
NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)  # fixed: the same size always gives the same rows


@dataclass
class Row:
    """One entry as stored (the embedding as float32)."""

    id: str
    name: str
    description: str
    reasoning: str
    category: str
    keywords: list
    observation_count: int
    confidence: str
    recall_count: int
    last_recalled_at: object
    created_at: datetime
    updated_at: datetime
    source: str
    source_project: str
    source_user: str
    scope: object
    vector: np.ndarray


def project_scopes(own_scope: str) -> list[str]:
    """The scopes entries may carry: PROJECTS - 1 other projects' identities and the benchmark project's."""
    return [own_scope] + [f"path:/work/team/project-{n:02d}" for n in range(1, PROJECTS)]


def pool_texts(count: int) -> list[str]:
    """The texts whose real embeddings are the clusters' centres (the same for every run)."""
    prose = Prose(seed=count)
    return [prose.text(40, 90) for _ in range(count)]


def generate(size: int, pool: np.ndarray, texts: list[str], own_scope: str) -> Iterator[list[Row]]:
    """Chunks of up to CHUNK rows, `size` rows in all minus the rare duplicate descriptions (skipped)."""
    from memory_core.entries.hashing import content_hash

    prose = Prose(seed=size)
    rng = np.random.default_rng(size + 1)
    scopes = project_scopes(own_scope)
    cluster_words = [t.lower().rstrip(".").split() for t in texts]
    seen: set[str] = set()
    for start in range(0, size, CHUNK):
        n = min(CHUNK, size - start)
        source = rng.integers(0, len(pool), n)
        noise = rng.standard_normal((n, DIMS)) * (0.5 / np.sqrt(DIMS))
        matrix = pool[source] + noise
        matrix = (matrix / np.linalg.norm(matrix, axis=1, keepdims=True)).astype(np.float32)
        words = iter(prose.vocab[i] for i in rng.choice(len(prose.vocab), n * 130, p=prose.p))
        rows = []
        for i in range(n):
            own = cluster_words[source[i]]
            lent = [own[j] for j in rng.integers(0, len(own), 8)]
            description = " ".join(lent + [next(words) for _ in range(rng.integers(10, 28))]).capitalize() + "."
            entry_id = content_hash(description)
            if entry_id in seen:
                continue
            seen.add(entry_id)
            rows.append(_row(rng, words, entry_id, description, matrix[i], scopes))
        yield rows


def _row(rng, words, entry_id: str, description: str, vector: np.ndarray, scopes: list[str]) -> Row:
    name = " ".join(next(words) for _ in range(rng.integers(3, 9))).capitalize()
    reasoning = " ".join(next(words) for _ in range(rng.integers(30, 80))).capitalize() + "."
    keywords = sorted({next(words) for _ in range(rng.integers(3, 7))})
    created = NOW - timedelta(days=float(rng.uniform(0, 3 * 365)))
    updated = min(NOW, created + timedelta(days=float(rng.exponential(60))))
    recalls = int(rng.poisson(1.0)) if rng.random() < 0.95 else int(rng.integers(5, 200))
    recalled = updated + timedelta(days=float(rng.uniform(0, 30))) if recalls else None
    roll = rng.random()
    scope = None if roll >= 0.1 else scopes[int(rng.integers(0, len(scopes)))]
    category = CATEGORIES[int(rng.choice(3, p=[0.25, 0.35, 0.4]))]
    confidence = ("high", "medium", "low")[int(rng.choice(3, p=[0.2, 0.6, 0.2]))]
    return Row(entry_id, name[:300], description, reasoning, category, keywords, min(int(rng.geometric(0.45)), 500),
               confidence,
               recalls, recalled, created.replace(microsecond=0), updated.replace(microsecond=0),
               SOURCES[int(rng.integers(0, 4))], f"project-{int(rng.integers(1, PROJECTS)):02d}",
               USERS[int(rng.integers(0, len(USERS)))], scope, vector)


def sqlite_row(row: Row) -> tuple:
    """The row in benchmarks.common.store.ROW_COLUMNS order (SQLite)."""
    stamp = lambda when: when.strftime("%Y-%m-%dT%H:%M:%SZ")  # noqa: E731
    return (row.id, row.name, row.description, row.reasoning, row.category, json.dumps(row.keywords), "[]",
            row.observation_count, row.confidence, row.recall_count, stamp(row.created_at), stamp(row.updated_at),
            row.source, row.source_project, row.vector.astype("<f4").tobytes())
