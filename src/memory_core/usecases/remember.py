"""Remember: validate a draft and store it, or reinforce the entry it repeats."""

from __future__ import annotations

from dataclasses import dataclass

from typing import Callable, Optional, Sequence

from memory_core.policies.keyword_tiers import TieredKeywords
from memory_core.entries.keywords import clean_keywords
from memory_core.entries.models import EntryDraft
from memory_core.anchors.anchor import Anchor
from memory_core.entries.records import UpsertOutcome
from memory_core.ports.clock import Clock
from memory_core.ports.entry_lifecycle import EntryLifecycle
from memory_core.ports.entry_store import EntryStore
from memory_core.usecases.reconcile_audit import ReconcileAudit


@dataclass
class Remembered:
    """The stored entry's id, whether it was new, and its observation count."""

    entry_id: str
    name: str
    created: bool
    observation_count: int


class Remember:
    """Stores learnings from writers (retro, MCP, CLI)."""

    def __init__(self, store: EntryStore, clock: Clock, keywords: Optional[TieredKeywords] = None,
                 reconcile: Optional[ReconcileAudit] = None,
                 anchoring: Optional[Callable[[Sequence[str]], tuple[Anchor, ...]]] = None) -> None:
        self._store = store
        self._anchoring = anchoring  # references → their anchors in the tree the writer runs in (ADR 26)
        self._clock = clock
        self._keywords = keywords
        self._reconcile = reconcile
        self.audit_problem: Optional[str] = None

    def run(self, draft: EntryDraft) -> Remembered:
        """Upsert the draft by content hash, then its markdown (vectors are added afterwards by EmbedPending)."""
        if self._keywords is not None:
            labels = self._keywords.generate(draft.name, draft.description, draft.reasoning, draft.category,
                                             supplied=draft.keywords)
        else:
            labels = clean_keywords(draft.keywords)
        draft = draft.model_copy(update={"keywords": labels})
        outcome: UpsertOutcome = self._store.upsert(draft, self._clock.now())
        if outcome.created and draft.references:
            self._anchor(outcome.entry_id, draft.references)
        if self._reconcile is not None:
            # The commit queued this entry's markdown write; replaying also finishes any a killed writer owed.
            report = self._reconcile.run()
            if report.problems:  # the database has it and the write stays queued; say the markdown lags
                self.audit_problem = report.problems[0]
        return Remembered(outcome.entry_id, draft.name, outcome.created, outcome.observation_count)

    def _anchor(self, entry_id: str, references: Sequence[str]) -> None:
        """Record where a new entry's references point today (before its markdown is written, so it carries them);
        a reinforced entry keeps the anchors it was learned with."""
        if self._anchoring is None or not isinstance(self._store, EntryLifecycle):
            return
        anchors = self._anchoring(references)
        if anchors:
            self._store.set_anchors(entry_id, anchors)
