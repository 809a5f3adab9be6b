"""The learnings the calibration scores: both snapshots of the real bank (one learning once) and the hand-written
paraphrases, each with the vector and the words the product would give it."""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from benchmarks.common.paths import DATA

PARAPHRASES = DATA / "paraphrases.json"
SNAPSHOTS = ("v024", "head")
"""Oldest first: a learning found in two snapshots is kept as the newest snapshot has it."""


@dataclass
class Learning:
    """One learning as a store would hold it: where it came from, its text, its vector."""

    snapshot: str
    category: str
    name: str
    description: str
    reasoning: str
    entry_id: str
    vector: Optional[list[float]] = None


def read_snapshots(root: Path) -> tuple[list[Learning], list[tuple[Learning, Learning]]]:
    """The distinct learnings of every snapshot under `root`, and the pairs that are one learning edited.

    One learning in two snapshots is not two distinct learnings: the same content id (unchanged), or the same
    category and heading name with a new text (an edit, the rule the edit-aware import follows, ADR 26). The newest
    snapshot's text is kept; each edited pair is reported, not counted as distinct."""
    from memory_adapters.markdown.knowledge_bank import MarkdownKnowledgeBankReader

    reader = MarkdownKnowledgeBankReader(warn_unknown=False)
    kept: dict[str, Learning] = {}
    edits: list[tuple[Learning, Learning]] = []
    for snapshot in SNAPSHOTS:
        by_name = {(x.category, x.name.strip().lower()): x for x in kept.values()}
        earlier_ids = set(kept)
        for found in reader.read(str(root / snapshot), "local"):
            draft = found.to_draft("bank")
            learning = Learning(snapshot, draft.category, draft.name, draft.description, draft.reasoning,
                                draft.entry_id)
            if learning.entry_id in kept and learning.entry_id not in earlier_ids:
                continue  # the same text twice in one snapshot: one entry, as an import stores it
            earlier = by_name.get((learning.category, learning.name.strip().lower()))
            if learning.entry_id not in earlier_ids and earlier is not None and earlier.entry_id in kept:
                edits.append((earlier, learning))
                del kept[earlier.entry_id]
            kept[learning.entry_id] = learning
    return list(kept.values()), edits


def read_paraphrases(path: Path = PARAPHRASES) -> tuple[list[dict], list[dict]]:
    """The hand-written paraphrases and the same-topic learnings that must not be flagged."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return data["paraphrases"], data["different"]


def as_learning(item: dict) -> Learning:
    """A hand-written learning as a draft the writer would store."""
    from memory_core.entries.models import EntryDraft

    draft = EntryDraft.model_validate({key: item[key] for key in ("name", "description", "reasoning", "category")})
    return Learning("written", draft.category, draft.name, draft.description, draft.reasoning, draft.entry_id)


def embed(learnings: Sequence[Learning]) -> str:
    """Give each learning the vector a store would: the product's own embedder (the container's, the bundled local
    model) over the text the entry is embedded from, labelled by the local keyword tier as an import labels it.
    Returns the embedding space's label."""
    from memory_apps.config import MemoryConfig
    from memory_apps.wiring.container import build_container
    from memory_core.embedding.normalising import document_text

    with tempfile.TemporaryDirectory(prefix="near-dups-") as store:  # an empty store: no space pinned yet
        container = build_container(MemoryConfig(embedding_provider="local"), store)
        plan = container.embedding_plan(want_target=True)
        if plan.target is None:
            raise SystemExit(f"the local model is not available: {plan.problem}")
        labels = container.local_keywords()
        texts = [document_text(x.name, x.description, x.reasoning,
                               labels.generate(x.name, x.description, x.reasoning, x.category)) for x in learnings]
        for learning, vector in zip(learnings, plan.target.embed_documents(texts)):
            learning.vector = vector
        return f"{plan.target.provider_name}/{plan.target.model_name} ({plan.target.dimensions}d)"
