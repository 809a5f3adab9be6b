"""Entry lifecycle port: anchors, retirement, edits that change an entry's id, and the history of all of it
(ADR 26). A store implements it beside `EntryStore`; every method is one short transaction that also queues
the markdown the change owes (the audit outbox)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Optional, Protocol, Sequence, runtime_checkable

from memory_core.anchors.anchor import Anchor
from memory_core.entries.records import Entry, HistoryEvent, RetiredEntry

if TYPE_CHECKING:
    from memory_core.entries.models import EntryDraft


@runtime_checkable
class EntryLifecycle(Protocol):
    """Keeps entries true over time: anchored, retired and restored, edited, with their history."""

    def set_anchors(self, entry_id: str, anchors: Sequence[Anchor], event: Optional[HistoryEvent] = None) -> bool:
        """Replace an entry's anchors (and record `event`, e.g. `confirmed`); False when the id is unknown."""
        ...

    def retire(self, entry_id: str, event: HistoryEvent, superseded_by: Optional[str] = None) -> Optional[RetiredEntry]:
        """Move an entry out of `entries` (no injection, no search) into the retired table, whole; None when it
        is not a live entry."""
        ...

    def restore(self, entry_id: str, event: HistoryEvent) -> Optional[Entry]:
        """Put a retired entry back (its vector is re-embedded later); None when it is not retired."""
        ...

    def retired(self, entry_id: str) -> Optional[RetiredEntry]:
        """The retired entry with this id, or None."""
        ...

    def retired_entries(self) -> list[RetiredEntry]:
        """Every retired entry, newest retirement first."""
        ...

    def replace_text(self, old_id: str, draft: EntryDraft, event: HistoryEvent, as_given: bool = False,
                     anchors: Optional[Sequence[Anchor]] = None) -> Optional[Entry]:
        """An edit: store `draft` under its new id with the old entry's counts, dates and anchors, drop the old
        row and make the old id resolve to the new one; None when `old_id` is not live or the new id is taken.
        `as_given` (a person's edit): the draft's reasoning, keywords, references and confidence replace the old
        ones as they are, and a draft of the same id rewrites the entry in place; `anchors`: the new entry's."""
        ...

    def resolve(self, entry_id: str) -> str:
        """The id an entry has now: follows edits (old id → newest id); any other id comes back unchanged."""
        ...

    def aliases(self) -> dict[str, str]:
        """Every old id and the id it resolves to now."""
        ...

    def history(self, entry_id: str) -> list[HistoryEvent]:
        """The events of this entry and of every older id it had, oldest first."""
        ...

    def all_history(self) -> list[HistoryEvent]:
        """Every event, oldest first (the markdown audit trail's history file is written from it)."""
        ...

    def record_event(self, event: HistoryEvent) -> None:
        """Append one event (an update that is not a lifecycle move: `merged`)."""
        ...

    def apply_history(self, events: Sequence[HistoryEvent], retired: Sequence[RetiredEntry],
                      aliases: Mapping[str, str], restored: Sequence[Entry] = ()) -> None:
        """A rebuild from markdown: put back the history, the retired entries and the aliases the history file
        holds (before the banks are imported, so they neither revive a retired entry nor an edited-away id), and
        the `restored` entries live where the store holds no entry of their id (no markdown but the history
        file keeps them: a restored bank entry whose block is gone)."""
        ...

    def bank_blocks(self, bank: str) -> dict[tuple[str, str], str]:
        """What the last import of one bank file held: {(category, name): entry id} (`bank`: an opaque key the importer chooses, e.g. the project identity and the file name)."""
        ...

    def set_bank_blocks(self, bank: str, blocks: Mapping[tuple[str, str], str]) -> None:
        """Record what an import of one bank file held (replacing the previous record)."""
        ...
