"""A temporary store per relevance set: the set's drafts labelled by the configured keyword tiers, imported and
embedded with the bundled local model, exactly as the product stores them."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from benchmarks.relevance.sets import RelevanceSet

BUILT_AT = datetime(2026, 11, 1, tzinfo=timezone.utc)
AGE_STEP = timedelta(days=3)
"""Entries get different ages (by position, unrelated to relevance) so recency is not a constant."""


@dataclass
class BuiltStore:
    """A store on disk for one set, and the key -> entry id map."""

    store_dir: str
    ids: dict[str, str]
    built_at: datetime = BUILT_AT
    """The store's "now": what a ranking over it should take as the current time."""


def build_store(relevance_set: RelevanceSet, workdir: str, built_at: datetime = BUILT_AT) -> BuiltStore:
    """Label, import and embed the set's drafts into `workdir/<set name>` with the local provider. `built_at`
    later than BUILT_AT moves every date by as much, so that a process ranking at `built_at` by the real clock
    (the hook) sees the entries as old as the suite, ranking at BUILT_AT, does."""
    from memory_apps.config import MemoryConfig
    from memory_apps.wiring.container import build_container
    from memory_apps.upkeep.embedding_jobs import embed_everything

    store_dir = os.path.join(workdir, relevance_set.name)
    os.makedirs(store_dir, exist_ok=True)
    container = build_container(MemoryConfig(embedding_provider="local", keyword_provider="local"), store_dir)
    tiers = container.local_keywords()
    now, shift = built_at, built_at - BUILT_AT
    items, ids = [], {}
    for position, (key, draft) in enumerate(relevance_set.drafts.items()):
        labels = tiers.generate(draft.name, draft.description, draft.reasoning, draft.category, draft.keywords)
        undated = now if relevance_set.imported else now - AGE_STEP * (position % 40)
        observed = relevance_set.observed[key] + shift if key in relevance_set.observed else undated
        items.append((draft.model_copy(update={"keywords": labels}), observed))
        ids[key] = draft.entry_id
    container.store().import_entries(items, now)
    report, problem = embed_everything(container)
    if report is None or report.remaining:
        raise RuntimeError(f"embedding the {relevance_set.name} set failed: {problem or report}")
    container.store().close()
    return BuiltStore(store_dir, ids, built_at)
