"""The Review page's data: the three queues of `MemoryService.review()` (ADR 26), each item with what can be done
about it (confirm a stale one, retire one of a near-duplicate pair, restore a superseded one)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from memory_apps.web.views.entry_refs import EntryRef, Moment, entry_ref, memory_href, moment
from memory_core.anchors.regions import parse_reference
from memory_core.safety.inert import one_line

STALE_HINT = ("The code these memories cite changed since they were learned. Read it, then confirm (still true: "
              "re-anchored to the code as it is today) or retire (no longer true).")
DUPLICATE_HINT = ("Pairs that say the same thing. Retire one of them, or open both and supersede one with a "
                  "learning that says it better.")
SUPERSEDED_HINT = "Retired as replaced by a later learning. Restore one if that was a mistake."
EMPTY_TEXT = "Nothing to review: every checked citation is current, no near-duplicates, nothing superseded."


@dataclass(frozen=True)
class Citation:
    """One citation that is no longer current: what it cites, its state, and the line that says so."""

    reference: str
    path: str
    state: str
    note: str


@dataclass(frozen=True)
class StaleItem:
    """A live memory whose citations went stale."""

    entry: EntryRef
    citations: tuple[Citation, ...]


@dataclass(frozen=True)
class PairItem:
    """Two memories that say the same thing, and how alike they are (0-1)."""

    first: EntryRef
    second: EntryRef
    similarity: float

    @property
    def similarity_text(self) -> str:
        """The similarity to two decimals, as `review` prints it."""
        return f"{self.similarity:.2f}"


@dataclass(frozen=True)
class SupersededItem:
    """A retired memory that a later one replaced."""

    entry: EntryRef
    superseded_by: str
    retired_at: Optional[Moment]
    reason: str

    @property
    def superseded_href(self) -> Optional[str]:
        """The replacing memory's page (None when the stored value is not a whole id)."""
        return memory_href(self.superseded_by)


@dataclass
class ReviewView:
    """The whole page: three queues, their hints, and the text for an empty review."""

    stale: list[StaleItem] = field(default_factory=list)
    pairs: list[PairItem] = field(default_factory=list)
    superseded: list[SupersededItem] = field(default_factory=list)
    stale_hint: str = STALE_HINT
    duplicate_hint: str = DUPLICATE_HINT
    superseded_hint: str = SUPERSEDED_HINT
    empty_text: str = EMPTY_TEXT

    @property
    def empty(self) -> bool:
        """Nothing needs a human."""
        return not (self.stale or self.pairs or self.superseded)


def review_view(queues: Any) -> ReviewView:
    """The page's data from `ReviewQueues` (stale entries, near-duplicate pairs, superseded entries), in their
    order."""
    return ReviewView(
        stale=[StaleItem(entry_ref(s.entry), tuple(_citation(state) for state in s.states)) for s in queues.stale],
        pairs=[PairItem(entry_ref(p.first), entry_ref(p.second), float(p.score)) for p in queues.near_duplicates],
        superseded=[SupersededItem(entry_ref(r.entry), one_line(r.superseded_by or ""), moment(r.retired_at),
                                   one_line(r.reason or "")) for r in queues.superseded])


def _citation(state: Any) -> Citation:
    return Citation(one_line(state.reference), one_line(parse_reference(state.reference).path), state.state,
                    one_line(state.note()))
