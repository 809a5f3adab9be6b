"""Retire, Restore and Confirm: one entry's move through the EntryLifecycle port, recorded as a history event,
then the markdown the store owes (the same audit reconcile Remember runs)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from memory_core.anchors.anchor import Anchor
from memory_core.entries.records import Entry, HistoryEvent, RetiredEntry
from memory_core.ports.clock import Clock
from memory_core.ports.entry_lifecycle import EntryLifecycle
from memory_core.ports.entry_store import EntryStore
from memory_core.usecases.reconcile_audit import ReconcileAudit

AnchorsFor = Callable[[Sequence[str]], Sequence[Anchor]]
"""Today's anchors of these references (a reference to a file that is absent gets none)."""


@dataclass(frozen=True)
class Changed:
    """What a lifecycle change did to which entry, and why the markdown lags when it does."""

    entry: Entry
    audit_problem: Optional[str] = None


def follow_audit(reconcile: Optional[ReconcileAudit]) -> Optional[str]:
    """Write the markdown the store queued with the change; the first problem when it stays queued."""
    if reconcile is None:
        return None
    problems = reconcile.run().problems
    return problems[0] if problems else None


class Retire:
    """Takes an entry out of injection and search, kept whole and restorable."""

    def __init__(self, lifecycle: EntryLifecycle, clock: Clock, reconcile: Optional[ReconcileAudit] = None) -> None:
        self._lifecycle, self._clock, self._reconcile = lifecycle, clock, reconcile

    def run(self, entry_id: str, reason: str, actor: str) -> Optional[Changed]:
        """Retire a live entry (None when it is not one)."""
        event = HistoryEvent(entry_id, "retired", self._clock.now(), actor, {"reason": reason} if reason else {})
        retired: Optional[RetiredEntry] = self._lifecycle.retire(entry_id, event)
        if retired is None:
            return None
        return Changed(retired.entry, follow_audit(self._reconcile))


class Restore:
    """Puts a retired entry back into injection and search (its vector is embedded again afterwards)."""

    def __init__(self, lifecycle: EntryLifecycle, clock: Clock, reconcile: Optional[ReconcileAudit] = None) -> None:
        self._lifecycle, self._clock, self._reconcile = lifecycle, clock, reconcile

    def run(self, entry_id: str, actor: str) -> Optional[Changed]:
        """Restore a retired entry (None when it is not retired)."""
        entry = self._lifecycle.restore(entry_id, HistoryEvent(entry_id, "restored", self._clock.now(), actor))
        if entry is None:
            return None
        return Changed(entry, follow_audit(self._reconcile))


class Confirm:
    """Re-anchors an entry to today's code: a human said it is still true, so its citations are current again."""

    def __init__(self, store: EntryStore, lifecycle: EntryLifecycle, clock: Clock, anchors_for: AnchorsFor,
                 reconcile: Optional[ReconcileAudit] = None) -> None:
        self._store, self._lifecycle, self._clock = store, lifecycle, clock
        self._anchors_for, self._reconcile = anchors_for, reconcile

    def run(self, entry_id: str, actor: str) -> Optional[Changed]:
        """Take today's anchors of the entry's references and record a `confirmed` event (None: not live)."""
        entry = self._store.get(entry_id)
        if entry is None:
            return None
        anchors = tuple(self._anchors_for(entry.references))
        event = HistoryEvent(entry_id, "confirmed", self._clock.now(), actor,
                             {"anchored": [a.reference for a in anchors]})
        if not self._lifecycle.set_anchors(entry_id, anchors, event):
            return None
        return Changed(entry.with_changes(anchors=anchors), follow_audit(self._reconcile))
