"""What every part of a run shares: progress on stderr, the benchmark project (a stable directory, so the
entries scoped to it in a reused database stay its own), and the clusters' centres embedded by the local model."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.postgres.corpus import pool_texts

POOL = 256


def log(message: str) -> None:
    """Progress on stderr, so stdout stays the report."""
    print(f"[postgres-bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def bench_project(root: Path) -> tuple[Path, str]:
    """The project every session starts in (an active feature, the local model configured) and its scope."""
    from benchmarks.common.fixtures import make_project
    from memory_adapters.project.identity import project_identity

    project = make_project(root.resolve(), {"embedding_provider": "local"})
    return project, project_identity(str(project))


def embedder():
    """The bundled local model, normalising (as the product embeds)."""
    from memory_adapters.embedders.local_embedder import LocalOnnxEmbedder
    from memory_core.embedding.normalising import NormalisingEmbedder

    return NormalisingEmbedder(LocalOnnxEmbedder())


def vector_pool(model) -> tuple[np.ndarray, list[str]]:
    """POOL real embeddings and their texts."""
    texts = pool_texts(POOL)
    return np.asarray(model.embed_documents(texts), dtype=np.float64), texts
