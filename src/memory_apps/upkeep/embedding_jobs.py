"""Embedding work done by the write paths and by `iflow-memory embed`."""

from __future__ import annotations

import sys
from typing import Callable, Optional, Sequence

from memory_apps.wiring.container import Container
from memory_core.usecases.embed_pending import BATCH_SIZE, EmbedReport


def embed_after_write(container: Container, first: Sequence[str] = ()) -> Optional[EmbedReport]:
    """Every write path processes one batch (spec: 50) of pending or re-embedding work."""
    plan = container.embedding_plan(want_target=True)
    if plan.target is None:
        return None
    report = container.embed_pending(embedder=plan.target).run(max_entries=BATCH_SIZE, first=first)
    refresh_vector_cache(container, plan)
    if report.rate_limited:
        print("iflow-memory: embedding provider rate limited; pending entries resume on the next write",
              file=sys.stderr)
    elif report.error:
        print(f"iflow-memory: embedding skipped: {report.error}", file=sys.stderr)
    return report


def embed_everything(container: Container, progress: Optional[Callable[[int, int], None]] = None,
                     max_entries: Optional[int] = None,
                     deadline_s: Optional[float] = None) -> tuple[Optional[EmbedReport], str]:
    """Embed all pending entries (or finish a re-embed) within `deadline_s` seconds if given; returns the report
    and a problem if none ran."""
    plan = container.embedding_plan(want_target=True)
    if plan.target is None:
        return None, plan.problem or "no embedding provider available"
    report = container.embed_pending(embedder=plan.target).run(max_entries=max_entries, progress=progress,
                                                               deadline_s=deadline_s)
    refresh_vector_cache(container, plan)
    return report, ""


def refresh_vector_cache(container: Container, plan) -> None:
    """Rebuild the flat vector cache after vectors changed, so the next session start only reads it."""
    if plan.query is None:
        return
    try:
        container.vector_index(dimensions=plan.query.dimensions).refresh()
    except Exception as exc:  # noqa: BLE001 - the cache is an optimisation, never a reason to fail a write
        print(f"iflow-memory: vector cache not refreshed: {type(exc).__name__}", file=sys.stderr)
