"""Review: what needs a human, in three queues (ADR 26): entries whose citations went stale, pairs of entries
that say the same thing, and entries a later one superseded. Each queue comes in a stable order."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from memory_core.anchors.states import CURRENT, AnchorState
from memory_core.entries.records import Entry, RetiredEntry
from memory_core.ports.entry_lifecycle import EntryLifecycle
from memory_core.ports.entry_store import EntryStore

StaleCheck = Callable[[Sequence[Entry]], Mapping[str, Sequence[AnchorState]]]
"""The anchor states of these entries, by entry id (only anchors the current project may judge)."""
DuplicatePairs = Callable[[Sequence[Entry]], Sequence[tuple[str, str, float]]]
"""Pairs of live entries that say the same thing, with a similarity score."""


@dataclass(frozen=True)
class StaleEntry:
    """A live entry with at least one citation that is no longer current."""

    entry: Entry
    states: tuple[AnchorState, ...]


@dataclass(frozen=True)
class DuplicatePair:
    """Two live entries that say the same thing (ids in order), and how alike they are."""

    first: Entry
    second: Entry
    score: float


@dataclass
class ReviewQueues:
    """The three review queues."""

    stale: list[StaleEntry] = field(default_factory=list)
    near_duplicates: list[DuplicatePair] = field(default_factory=list)
    superseded: list[RetiredEntry] = field(default_factory=list)

    def empty(self) -> bool:
        """Nothing needs a human."""
        return not (self.stale or self.near_duplicates or self.superseded)


class Review:
    """Gathers the review queues over every live and retired entry."""

    def __init__(self, store: EntryStore, lifecycle: EntryLifecycle, stale_check: StaleCheck,
                 duplicate_pairs: DuplicatePairs) -> None:
        self._store, self._lifecycle = store, lifecycle
        self._stale_check, self._duplicate_pairs = stale_check, duplicate_pairs

    def run(self) -> ReviewQueues:
        """Stale entries by id; near-duplicate pairs most alike first; superseded entries newest first."""
        entries = self._store.all_entries()
        by_id = {e.id: e for e in entries}
        queues = ReviewQueues()
        states = self._stale_check([e for e in entries if e.anchors])
        for entry_id in sorted(states):
            stale = tuple(s for s in states[entry_id] if s.state != CURRENT)
            if stale and entry_id in by_id:
                queues.stale.append(StaleEntry(by_id[entry_id], stale))
        pairs = {tuple(sorted((a, b))): score for a, b, score in self._duplicate_pairs(entries)
                 if a != b and a in by_id and b in by_id}
        for (a, b), score in sorted(pairs.items(), key=lambda item: (-item[1], item[0])):
            queues.near_duplicates.append(DuplicatePair(by_id[a], by_id[b], score))
        retired = [r for r in self._lifecycle.retired_entries() if r.superseded_by]
        queues.superseded = sorted(retired, key=lambda r: (-r.retired_at.timestamp(), r.entry.id))
        return queues
