"""Synthetic stores and the benchmark project (an active feature, no git), identical for every run of a size."""

from __future__ import annotations

import json
import shutil
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Sequence

import numpy as np

from benchmarks.common.store import CATEGORIES, size_mb, write_store

# Vocabulary of the synthetic entries (drawn with a Zipf-like distribution, so common words match many rows).
VOCAB = """
test tests parser review reviewer spec design plan task tasks hook hooks session agent skill command file files
error errors retry timeout cache database schema migration index query queries config setting settings
validation check checks lint format output input json markdown yaml path paths script scripts shell bash python
function module import export state phase iteration blocker blockers feature branch commit merge release deploy
rollback version dependency package install build pipeline ci server client request response api endpoint token
key secret log logs logging metric metrics trace debug fix bug regression coverage fixture mock stub fake
contract interface adapter port domain model entity field fields column row table transaction lock concurrent
thread process worker queue event events handler callback async sync batch stream buffer memory disk network
latency performance slow fast budget limit deadline guard fallback default option flag argument parameter
template prompt context summary artifact document docs readme guide example pattern heuristic practice rule
constraint requirement acceptance criteria scope estimate risk assumption decision tradeoff simplicity
complexity refactor rename extract inline duplicate reuse split combine boundary layer service container
injection wiring factory provider embedding vector keyword ranking score weight selection category limit
golden snapshot diff patch line lines header headers section sections heading prose word words count
""".split()
FEATURE = Path("docs") / "features" / "042-parser-hardening"
SPEC_TEXT = """# Spec: parser hardening

Harden the markdown parser of the knowledge bank against malformed files: validate every header and field
before writing, keep golden examples for each format, add a fallback when a section is missing, and cut the
review iterations that parser changes have cost so far.

## Requirements

- The parser never crashes on a malformed entry.
"""
TOPICS = ("retry", "parser", "cache", "migration", "fixture", "deploy", "schema", "queue", "token", "index")


def synthetic_rows(count: int, seed: int = 11) -> list[tuple]:
    """`count` entry rows (without the embedding column), identical for every database of this size and seed.
    Not cached: 100k live row tuples would slow the garbage collector during the in-process timings."""
    from memory_core.entries.hashing import content_hash

    rng = np.random.default_rng(seed)
    vocab = np.array(VOCAB)
    weights = 1.0 / np.arange(1, len(VOCAB) + 1) ** 0.9
    p = weights / weights.sum()
    desc_words = rng.choice(len(VOCAB), size=(count, 24), p=p)
    name_words = rng.choice(len(VOCAB), size=(count, 4), p=p)
    kw_words = rng.choice(len(VOCAB), size=(count, 4))
    obs = rng.integers(1, 9, size=count)
    conf = rng.choice(["high", "medium", "low"], size=count, p=[0.2, 0.6, 0.2])
    recalls = rng.integers(0, 6, size=count)
    age_days = rng.integers(0, 365, size=count)
    cats = rng.choice(CATEGORIES, size=count)
    now = datetime.now(timezone.utc)
    rows, seen = [], set()
    for i in range(count):
        description = f"Learning {i}: " + " ".join(vocab[desc_words[i]]) + "."
        entry_id = content_hash(description)
        if entry_id in seen:
            continue
        seen.add(entry_id)
        name = " ".join(vocab[name_words[i]]).capitalize() + f" {i}"
        keywords = json.dumps(sorted(set(vocab[kw_words[i]].tolist())))
        stamp = (now - timedelta(days=int(age_days[i]))).strftime("%Y-%m-%dT%H:%M:%SZ")
        reasoning = f"- Observed in: Feature #{i % 90:03d}, {vocab[desc_words[i][0]]} phase"
        rows.append((entry_id, name, description, reasoning, str(cats[i]), keywords, "[]", int(obs[i]),
                     str(conf[i]), int(recalls[i]), stamp, stamp, "retro", None))
    return rows


def unit_vectors(count: int, dims: int, seed: int) -> np.ndarray:
    """`count` random unit vectors (float32)."""
    matrix = np.random.default_rng(seed).standard_normal((count, dims), dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix


def build_database(path: Path, count: int, space: tuple[str, str, int], imported_roots: Sequence[Path] = ()) -> dict:
    """A store of `count` synthetic rows with random unit vectors in `space`, the projects marked as imported."""
    started = time.perf_counter()
    rows = synthetic_rows(count)
    matrix = unit_vectors(len(rows), space[2], seed=count + space[2])
    write_store(path, (row + (matrix[i].tobytes(),) for i, row in enumerate(rows)), space, imported_roots)
    return {"entries": len(rows), "dims": space[2], "build_s": round(time.perf_counter() - started, 2),
            "db_mb": size_mb(path)}


def make_project(root: Path, settings: dict[str, object]) -> Path:
    """An empty (non-git) project with an active feature (.meta.json + spec.md) and a settings file."""
    feature = root / FEATURE
    feature.mkdir(parents=True, exist_ok=True)
    (feature / ".meta.json").write_text(json.dumps(
        {"status": "active", "slug": "parser-hardening", "lastCompletedPhase": "design"}) + "\n", encoding="utf-8")
    (feature / "spec.md").write_text(SPEC_TEXT, encoding="utf-8")
    write_settings(root, settings)
    return root


def new_context(project: Path, n: int) -> None:
    """Rewrite the feature's spec so the next session's context query is one never seen before."""
    (project / FEATURE / "spec.md").write_text(
        f"# Spec\n\nHarden the parser, round {n}: reject {TOPICS[n % 10]} input with line numbers "
        f"and keep {TOPICS[(n + 3) % 10]} errors readable for session {n}.\n", encoding="utf-8")


def write_settings(project: Path, settings: dict[str, object]) -> None:
    """The project's .claude/iflow-dev.local.md with `memory_<key>: <value>` lines."""
    path = project / ".claude" / "iflow-dev.local.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["# iflow-dev local settings (benchmark)", ""]
    lines += [f"memory_{k}: {str(v).lower() if isinstance(v, bool) else v}" for k, v in settings.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def copy_bank(source: Path, project: Path) -> None:
    """Copy a knowledge bank into PROJECT/docs/knowledge-bank."""
    target = project / "docs" / "knowledge-bank"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source, target)


def context_query_text() -> str:
    """The context query the injector composes for the benchmark project (no git)."""
    from memory_adapters.project.git_context_source import _prose
    from memory_core.ranking.context_query import compose_context_query
    from memory_core.ports.context_source import ProjectContext

    description = " ".join(_prose(SPEC_TEXT).split()[:100])
    return compose_context_query(ProjectContext(feature_slug="parser-hardening", feature_description=description,
                                                phase="design"))
