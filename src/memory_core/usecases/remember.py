"""Remember: validate a draft and store it, or reinforce the entry it repeats; say which stored learnings it
repeats in other words (near-duplicates), or reinforce the one the writer chose instead (`merge_into`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from typing import Callable, Optional, Sequence

from memory_core.policies.keyword_tiers import TieredKeywords
from memory_core.entries.keywords import clean_keywords
from memory_core.anchors.anchor import Anchor
from memory_core.entries.models import MAX_REFERENCES, EntryDraft
from memory_core.entries.records import Entry, HistoryEvent, UpsertOutcome
from memory_core.errors import InvalidEntry
from memory_core.ports.clock import Clock
from memory_core.ports.entry_lifecycle import EntryLifecycle
from memory_core.ports.entry_store import EntryStore
from memory_core.usecases.near_duplicates import FindNearDuplicates, Neighbour
from memory_core.usecases.reconcile_audit import ReconcileAudit
from memory_core.usecases.retired_refusal import RetiredLearning


@dataclass
class Remembered:
    """The stored entry's id, whether it was new, and its observation count; the stored learnings the draft
    repeats in other words (advice: the draft is stored all the same), and whether it was merged into one."""

    entry_id: str
    name: str
    created: bool
    observation_count: int
    near_duplicates: list[Neighbour] = field(default_factory=list)
    merged: bool = False
    """The draft reinforced the entry the writer named (`merge_into`) instead of being stored."""


class Remember:
    """Stores learnings from writers (retro, MCP, CLI)."""

    def __init__(self, store: EntryStore, clock: Clock, keywords: Optional[TieredKeywords] = None,
                 reconcile: Optional[ReconcileAudit] = None,
                 anchoring: Optional[Callable[[Sequence[str]], tuple[Anchor, ...]]] = None,
                 neighbours: Optional[FindNearDuplicates] = None) -> None:
        self._store = store
        self._anchoring = anchoring  # references → their anchors in the tree the writer runs in (ADR 26)
        self._clock = clock
        self._keywords = keywords
        self._reconcile = reconcile
        self._neighbours = neighbours
        self.audit_problem: Optional[str] = None

    def run(self, draft: EntryDraft, merge_into: Optional[str] = None, actor: str = "") -> Remembered:
        """Upsert the draft by content hash, then its markdown (vectors are added afterwards by EmbedPending);
        with `merge_into` (a full id; `actor` records who), reinforce that entry instead (InvalidEntry when it is
        not stored). RetiredLearning (nothing stored) when the draft's text, or `merge_into`, is retired; the
        text an edit replaced reinforces the entry it became."""
        if merge_into is not None:
            return self._merge(draft, merge_into, actor)
        current = self._live_id(draft.entry_id, "description")
        if current != draft.entry_id:  # the text an edit replaced: it repeats the entry the edit made
            target = self._store.get(current)
            if target is not None:
                return self._reinforce(target, draft)
        if self._keywords is not None:
            labels = self._keywords.generate(draft.name, draft.description, draft.reasoning, draft.category,
                                             supplied=draft.keywords)
        else:
            labels = clean_keywords(draft.keywords)
        draft = draft.model_copy(update={"keywords": labels})
        similar: list[Neighbour] = []
        if self._neighbours is not None:  # before the write: the draft is not its own neighbour
            similar = self._neighbours.run(draft.name, draft.description, draft.category, draft.reasoning,
                                           draft.keywords, exclude=[draft.entry_id])
        outcome: UpsertOutcome = self._store.upsert(draft, self._clock.now())
        if outcome.created and draft.references:
            self._anchor(outcome.entry_id, draft.references)
        elif "references" in draft.model_fields_set and draft.references:  # a repeat that cites more
            self._anchor_added(outcome.entry_id, draft.references)
        self._replay_audit()
        return Remembered(outcome.entry_id, draft.name, outcome.created, outcome.observation_count, similar)

    def _live_id(self, entry_id: str, field: str) -> str:
        """The id `entry_id` names now (an edited entry's old id: the one it became); RetiredLearning (nothing
        stored) when that entry is retired: a write never revives it, `restore` does."""
        if not isinstance(self._store, EntryLifecycle):
            return entry_id
        current = self._store.resolve(entry_id)
        if self._store.get(current) is None:
            retired = self._store.retired(current)
            if retired is not None:
                raise RetiredLearning(field, retired)
        return current

    def _merge(self, draft: EntryDraft, target_id: str, actor: str) -> Remembered:
        """Reinforce the stored entry `target_id` with the draft: one more observation, the draft's references
        added to its own, a `merged` event when the store keeps history; its text stays."""
        target_id = self._live_id(target_id, "merge_into")
        target = self._store.get(target_id)
        if target is None:
            raise InvalidEntry("merge_into", f"no entry with id {target_id}")
        return self._reinforce(target, draft, actor, merged=True)

    def _reinforce(self, target: Entry, draft: EntryDraft, actor: str = "", merged: bool = False) -> Remembered:
        """One more observation of `target`, the draft's references added (and anchored); `merged` records it."""
        now = self._clock.now()
        reinforcing = reinforcement(target, draft)
        outcome = self._store.upsert(reinforcing, now)
        if "references" in draft.model_fields_set and draft.references:  # the writer's, not git's guesses
            self._anchor_added(target.id, draft.references)
        if merged and isinstance(self._store, EntryLifecycle):
            self._store.record_event(HistoryEvent(target.id, "merged", now, actor, {
                "from": draft.name, "description": draft.description, "id": draft.entry_id}))
        self._replay_audit()
        return Remembered(outcome.entry_id, target.name, False, outcome.observation_count, merged=merged)

    def _replay_audit(self) -> None:
        if self._reconcile is not None:
            # The commit queued this entry's markdown write; replaying also finishes any a killed writer owed.
            report = self._reconcile.run()
            if report.problems:  # the database has it and the write stays queued; say the markdown lags
                self.audit_problem = report.problems[0]

    def _anchor(self, entry_id: str, references: Sequence[str]) -> None:
        """Record where a new entry's references point today (before its markdown is written, so it carries them)."""
        if self._anchoring is None or not isinstance(self._store, EntryLifecycle):
            return
        anchors = self._anchoring(references)
        if anchors:
            self._store.set_anchors(entry_id, anchors)

    def _anchor_added(self, entry_id: str, references: Sequence[str]) -> None:
        """Anchor the stored entry's references among `references` that have no anchor of this project yet (a
        repeat or a merge that cites more); the anchors it has stay as they were learned."""
        if self._anchoring is None or not isinstance(self._store, EntryLifecycle):
            return
        entry = self._store.get(entry_id)
        if entry is None:
            return
        cited = [r for r in dict.fromkeys(references) if r in entry.references]  # the store kept these
        taken = {(a.reference, a.project) for a in entry.anchors}
        fresh = tuple(a for a in self._anchoring(cited) if (a.reference, a.project) not in taken)
        if fresh:
            self._store.set_anchors(entry_id, (*entry.anchors, *fresh))


def reinforcement(target: Entry, draft: EntryDraft) -> EntryDraft:
    """A draft that repeats `target` exactly (its own text, so its id) with the references the writer gave added:
    stored, it counts one more observation of the target (the merge rules, `merge.reinforced`)."""
    given_references = draft.references if "references" in draft.model_fields_set else []  # not git's guesses
    references = list(dict.fromkeys([*target.references, *given_references]))[:MAX_REFERENCES]
    given = {"references"} if references != list(target.references) else set()
    # Built, not validated: the stored text must hash to the stored id as it is (validation would strip it).
    return EntryDraft.model_construct(
        _fields_set=given, name=target.name, description=target.description, reasoning=target.reasoning,
        category=target.category, keywords=list(target.keywords), references=references,
        confidence=target.confidence, source=target.source, source_project=target.source_project,
        scope=target.scope, observation_count=1)
