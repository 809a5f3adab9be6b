"""Retire, Restore and Confirm: one entry's move through the EntryLifecycle port, recorded as a history event,
then the markdown the store owes (the same audit reconcile Remember runs)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from memory_core.anchors.anchor import Anchor
from memory_core.anchors.regions import parse_reference
from memory_core.anchors.states import MISSING, MOVED, AnchorState
from memory_core.entries.records import Entry, HistoryEvent, RetiredEntry
from memory_core.ports.clock import Clock
from memory_core.ports.entry_lifecycle import EntryLifecycle
from memory_core.ports.entry_store import EntryStore
from memory_core.safety.inert import one_line
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


@dataclass(frozen=True)
class Confirmed(Changed):
    """A confirmation: how many of the entry's citations were anchored to today's code, and the ones whose file
    is absent (each kept on its old anchor, so its mark stays, with where version control says it went)."""

    anchored: int = 0
    cited: int = 0
    gone: tuple[AnchorState, ...] = ()

    @property
    def id(self) -> str:
        """The entry's id."""
        return self.entry.id

    @property
    def name(self) -> str:
        """The entry's name."""
        return self.entry.name

    @property
    def anchors(self) -> tuple[Anchor, ...]:
        """The entry's anchors after the confirmation."""
        return tuple(self.entry.anchors)

    def summary(self) -> str:
        """"anchored to the code as it is now (3 citations anchored)", or, with a file gone, "confirmed 2 of 3
        citations; src/old.py is still gone (moved to src/new.py): supersede the learning with the new path, or
        retire it"."""
        if not self.gone:
            return f"anchored to the code as it is now ({_count(self.anchored, 'citation')} anchored)"
        gone = "; ".join(f"{one_line(parse_reference(s.reference).path)} is still gone"
                         + (f" (moved to {one_line(s.moved_to)})" if s.moved_to else "") for s in self.gone)
        path = "the new path" if any(s.moved_to for s in self.gone) else "what is true now"
        return (f"confirmed {self.anchored} of {_count(self.cited, 'citation')}; {gone}: supersede the learning "
                f"with {path}, or retire it")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


class Confirm:
    """Re-anchors an entry to today's code: a human said it is still true, so its citations are current again;
    a citation whose file is absent keeps its old anchor (and its mark): confirming cannot make it true."""

    def __init__(self, store: EntryStore, lifecycle: EntryLifecycle, clock: Clock, anchors_for: AnchorsFor,
                 reconcile: Optional[ReconcileAudit] = None, project: str = "",
                 state_of: Optional[Callable[[Anchor], AnchorState]] = None) -> None:
        self._store, self._lifecycle, self._clock = store, lifecycle, clock
        self._anchors_for, self._reconcile = anchors_for, reconcile
        self._project = project
        """The identity of the project confirming: anchors another project took are kept (it judges them)."""
        self._state_of = state_of
        """An absent file's anchor checked (moved, with where to, or missing); without it, each is missing."""

    def run(self, entry_id: str, actor: str) -> Optional[Confirmed]:
        """Take today's anchors of the entry's references and record a `confirmed` event (None: not live)."""
        entry = self._store.get(entry_id)
        if entry is None:
            return None
        references = list(dict.fromkeys(entry.references))
        fresh = tuple(self._anchors_for(references))
        anchored = {a.reference for a in fresh}
        others = tuple(a for a in entry.anchors if self._project and a.project != self._project)
        mine = {a.reference: a for a in entry.anchors if a not in others}
        kept = tuple(mine[r] for r in references if r not in anchored and r in mine)
        gone = tuple(self._gone(mine.get(r), r) for r in references if r not in anchored)
        anchors = others + kept + fresh
        detail: dict = {"anchored": [a.reference for a in fresh]}
        if gone:
            detail["still_gone"] = [s.reference for s in gone]
        event = HistoryEvent(entry_id, "confirmed", self._clock.now(), actor, detail)
        if not self._lifecycle.set_anchors(entry_id, anchors, event):
            return None
        return Confirmed(entry.with_changes(anchors=anchors), follow_audit(self._reconcile), len(fresh),
                         len(references), gone)

    def _gone(self, anchor: Optional[Anchor], reference: str) -> AnchorState:
        if anchor is None or self._state_of is None:
            return AnchorState(reference, MISSING)
        state = self._state_of(anchor)
        return state if state.state in (MOVED, MISSING) else AnchorState(reference, MISSING)
