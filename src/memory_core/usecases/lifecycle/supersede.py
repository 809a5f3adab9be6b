"""Supersede: store a new learning and retire the one it replaces, pointing from old to new (ADR 26)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from memory_core.entries.models import EntryDraft
from memory_core.entries.records import HistoryEvent
from memory_core.errors import InvalidEntry
from memory_core.ports.clock import Clock
from memory_core.ports.entry_lifecycle import EntryLifecycle
from memory_core.ports.entry_store import EntryStore
from memory_core.usecases.lifecycle.changes import follow_audit
from memory_core.usecases.reconcile_audit import ReconcileAudit
from memory_core.usecases.remember import Remember, Remembered


@dataclass
class Superseded:
    """The new entry as Remember stored it, the id it retired, and why the markdown lags when it does."""

    remembered: Remembered
    old_id: str
    old_name: str
    audit_problem: Optional[str] = None


class Supersede:
    """Stores the draft (through Remember), then retires the old entry with `superseded_by`."""

    def __init__(self, store: EntryStore, lifecycle: EntryLifecycle, clock: Clock, remember: Remember,
                 reconcile: Optional[ReconcileAudit] = None) -> None:
        self._store, self._lifecycle, self._clock = store, lifecycle, clock
        self._remember, self._reconcile = remember, reconcile

    def check(self, draft: EntryDraft, old_id: str) -> str:
        """The live id `old_id` names now (an edited id resolves); InvalidEntry("supersedes", ...) before
        anything is stored when it names no live entry or the draft would be the same entry."""
        current = self._lifecycle.resolve(old_id)
        if self._store.get(current) is None:
            retired = self._lifecycle.retired(current)
            why = "is already retired" if retired is not None else "names no entry"
            raise InvalidEntry("supersedes", f"{old_id} {why}")
        if self._lifecycle.resolve(draft.entry_id) == current:  # its own text, or the text an edit replaced
            raise InvalidEntry("supersedes", "the new learning has the same description as the one it replaces "
                                             "(writing it again reinforces that entry)")
        return current

    def run(self, draft: EntryDraft, old_id: str, actor: str) -> Superseded:
        """Store the new learning, then retire the old one; InvalidEntry (nothing stored) as `check` says."""
        old_id = self.check(draft, old_id)
        old = self._store.get(old_id)
        stored = self._remember.run(draft)
        now = self._clock.now()
        # The old entry's retirement is its `superseded` event (with the retired row's superseded_by); the new
        # entry records what it replaced, so either side's history tells the story.
        self._lifecycle.retire(old_id, HistoryEvent(old_id, "superseded", now, actor, {"by": stored.entry_id}),
                               superseded_by=stored.entry_id)
        self._lifecycle.record_event(HistoryEvent(stored.entry_id, "superseded", now, actor,
                                                  {"supersedes": old_id}))
        problem = follow_audit(self._reconcile) or self._remember.audit_problem
        return Superseded(stored, old_id, old.name if old else "", problem)
