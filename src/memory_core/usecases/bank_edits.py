"""Edit-aware import (ADR 26): each category file of a project's bank is compared with what its last import held,
so a block whose text changed under the same heading edits its entry instead of adding a second one, and a block
gone from its file retires its entry (kept, restorable) instead of leaving it injected for good."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Callable, Optional, Sequence

from memory_core.entries.knowledge import KnowledgeEntry
from memory_core.entries.records import HistoryEvent
from memory_core.ports.entry_lifecycle import EntryLifecycle
from memory_core.ports.entry_store import EntryStore

if TYPE_CHECKING:
    from memory_core.entries.models import EntryDraft

Block = tuple[str, str]
"""(category, heading) as a file's record keys it: the heading with its spacing and case folded."""
BANKS_KEY = "bank-blocks"
"""`_metadata` key listing every bank file whose blocks are recorded: a retirement asks the other banks first."""
REMOVED = "removed from "
"""How an import's retirement reason starts: only those does a block coming back restore (never the user's)."""


def bank_key(identity: str, category: str) -> str:
    """The record key of one category file of a project's bank."""
    return f"{identity}#{category}.md"


def block_name(name: str) -> str:
    """A heading as records compare it: re-spacing or re-casing a heading does not make a new block."""
    return " ".join(name.split()).casefold()


def import_actor() -> str:
    """Who an import's history events name: `<user> via import`."""
    import getpass  # only when an import changes an entry's life: a session start's import rarely does

    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no passwd entry and no USER/LOGNAME (a bare container)
        user = "unknown"
    return f"{user} via import"


@dataclass
class FilePlan:
    """What one bank file's import changes beyond storing its blocks."""

    key: str
    file: str
    blocks: dict[Block, str]
    """The file's unambiguous headings and their ids: recorded after a complete import."""
    previous: dict[Block, str]
    edits: list[tuple[str, KnowledgeEntry]] = field(default_factory=list)
    """(old id, the block that now holds its heading with another text)."""
    removed: list[str] = field(default_factory=list)
    """Ids whose heading left the file and whose text is nowhere else in the bank."""
    returned: list[str] = field(default_factory=list)
    """Ids the last record did not hold (every id on a file's first import): a retired one may come back."""

    @property
    def changed(self) -> bool:
        """Whether the record must be written again."""
        return self.blocks != self.previous


def plan_file(category: str, identity: str, entries: Sequence[KnowledgeEntry], previous: dict[Block, str],
              bank_ids: set[str]) -> FilePlan:
    """Compare one file's blocks with its last record. A heading that two blocks of the file share is
    ambiguous: neither edited nor retired, and not recorded. A text still in the bank (`bank_ids`, every file)
    is neither edited away nor retired. Without a record (the file's first import) nothing is edited or retired."""
    ids_by_name: dict[Block, set[str]] = {}
    block_of: dict[Block, KnowledgeEntry] = {}
    for entry in entries:
        name = (category, block_name(entry.name))
        ids_by_name.setdefault(name, set()).add(entry.entry_id)
        block_of.setdefault(name, entry)
    blocks = {name: next(iter(ids)) for name, ids in ids_by_name.items() if len(ids) == 1}
    plan = FilePlan(bank_key(identity, category), f"{category}.md", blocks, dict(previous))
    in_file = {entry.entry_id for entry in entries}
    plan.returned = sorted(in_file - set(previous.values()))
    if not previous:
        return plan
    for name, new_id in blocks.items():
        old_id = previous.get(name)
        if old_id is not None and old_id != new_id and old_id not in bank_ids:
            plan.edits.append((old_id, block_of[name]))
    plan.removed = sorted({old_id for name, old_id in previous.items()
                           if name not in ids_by_name and old_id not in bank_ids})
    return plan


@dataclass
class LifecycleCounts:
    """What the lifecycle step of one import did."""

    edited: int = 0
    retired: int = 0
    restored: int = 0


class BankEdits:
    """Plans and applies one import's edits, retirements and restorations, then records each file's blocks.

    Cheap when nothing changed: one `bank_blocks` read per file that has blocks, and no other query."""

    def __init__(self, store: EntryStore, lifecycle: EntryLifecycle, identity: str, now: datetime,
                 actor: Optional[str] = None) -> None:
        self._store = store
        self._lifecycle = lifecycle
        self._identity = identity
        self._now = now
        self._who = actor  # None: `<user> via import`, looked up when the first event is made
        self._plans: list[FilePlan] = []

    @property
    def _actor(self) -> str:
        if self._who is None:
            self._who = import_actor()
        return self._who

    def plan(self, local: Sequence[KnowledgeEntry]) -> list[FilePlan]:
        """One plan per category file of the bank that holds blocks (a file absent or empty is left alone: a
        checkout without the bank, or a reader that failed, must not retire a whole file)."""
        by_category: dict[str, list[KnowledgeEntry]] = {}
        for entry in local:
            by_category.setdefault(entry.category, []).append(entry)
        bank_ids = {entry.entry_id for entry in local}
        self._plans = [plan_file(category, self._identity, entries,
                                 self._lifecycle.bank_blocks(bank_key(self._identity, category)), bank_ids)
                       for category, entries in sorted(by_category.items())]
        return self._plans

    def apply(self, plans: Sequence[FilePlan], global_ids: set[str],
              live_of: Callable[[list[str]], set[str]],
              draft_of: Callable[[KnowledgeEntry], Optional[EntryDraft]]) -> LifecycleCounts:
        """Restore, edit and retire as the plans say (`live_of`: which of these ids are stored; `draft_of`: the
        validated draft the import would store for a block, None when it would skip it)."""
        counts = LifecycleCounts()
        restored = self._restore(plans)
        counts.restored = len(restored)
        wanted = {i for p in plans for i in p.removed} | {
            i for p in plans for old_id, block in p.edits for i in (old_id, block.entry_id)}
        if not wanted:
            return counts
        live = live_of(sorted(wanted)) | restored
        counts.edited, replaced = self._edit(plans, live, draft_of)
        counts.retired = self._retire([(p.file, old_id) for p in plans for old_id in p.removed] + replaced, live,
                                      global_ids)
        return counts

    def record(self) -> None:
        """Record the changed files' blocks of the last plan (after a complete import), and list their bank for
        later retirements."""
        changed = [p for p in self._plans if p.changed]
        for plan in changed:
            self._lifecycle.set_bank_blocks(plan.key, plan.blocks)
        known = _bank_keys(self._store.get_metadata(BANKS_KEY)) if changed else []
        fresh = sorted({p.key for p in changed} - set(known))
        if fresh:
            self._store.set_metadata(BANKS_KEY, json.dumps(sorted(set(known) | set(fresh))))

    def _restore(self, plans: Sequence[FilePlan]) -> set[str]:
        """A block back in a bank brings back the entry an import retired when it left (a branch switched
        back, a block undeleted); an entry the user retired stays retired. One read of the retired entries,
        only when a file holds an id its record did not (a retired entry is never live: no state to read)."""
        back = {i: p.file for p in plans for i in p.returned}
        if not back:
            return set()
        restored: set[str] = set()
        for retired in self._lifecycle.retired_entries():
            entry_id = retired.entry.id
            if entry_id not in back or retired.superseded_by or not retired.reason.startswith(REMOVED):
                continue
            event = HistoryEvent(entry_id, "restored", self._now, self._actor, {"reason": f"back in {back[entry_id]}"})
            if self._lifecycle.restore(entry_id, event) is not None:
                restored.add(entry_id)
        return restored

    def _edit(self, plans: Sequence[FilePlan], live: set[str],
              draft_of: Callable[[KnowledgeEntry], Optional[EntryDraft]]) -> tuple[int, list[tuple[str, str]]]:
        """Apply the edits; returns how many, and the (file, old id) whose heading now holds a text stored
        already (another entry's): the old text left the bank, so it retires like a removed block."""
        todo = [(p.file, old_id, block) for p in plans for old_id, block in p.edits if old_id in live]
        replaced = [(file, old_id) for file, old_id, block in todo if block.entry_id in live]
        todo = [item for item in todo if item[2].entry_id not in live]
        if not todo:
            return 0, replaced
        olds = {e.id: e for e in self._store.get_many([old_id for _, old_id, _ in todo])}
        edited = 0
        for file, old_id, block in todo:
            draft, old = draft_of(block), olds.get(old_id)
            if draft is None or old is None or old_id not in live:
                continue  # invalid text: the import reports it, and the old entry stays until the text is fixed
            if draft.entry_id in live:  # another heading took this text first
                replaced.append((file, old_id))
                continue
            # One learning, its counts kept: the bank may say it was seen more often than the store knows.
            draft = draft.model_copy(update={"observation_count": max(old.observation_count,
                                                                      draft.observation_count)})
            event = HistoryEvent(draft.entry_id, "edited", self._now, self._actor, {
                "old_id": old_id, "new_id": draft.entry_id, "old_description": old.description, "file": file})
            if self._lifecycle.replace_text(old_id, draft, event) is not None:
                live.discard(old_id)
                live.add(draft.entry_id)
                edited += 1
        return edited, replaced

    def _retire(self, gone: list[tuple[str, str]], live: set[str], global_ids: set[str]) -> int:
        """Retire the entries whose text left the bank (file, id), unless a bank or the global markdown holds it."""
        doomed = [(file, old_id) for file, old_id in gone if old_id in live and old_id not in global_ids]
        if not doomed:
            return 0
        elsewhere = self._held_by_other_banks()
        retired = 0
        for file, old_id in doomed:
            if old_id in elsewhere:
                continue  # another project's bank still holds it: retiring it would take it from that one too
            event = HistoryEvent(old_id, "retired", self._now, self._actor, {"reason": REMOVED + file})
            if self._lifecycle.retire(old_id, event) is not None:
                live.discard(old_id)
                retired += 1
        return retired

    def _held_by_other_banks(self) -> set[str]:
        """Every id another project's bank held at its last import (read only when something is to retire)."""
        held: set[str] = set()
        for key in _bank_keys(self._store.get_metadata(BANKS_KEY)):
            if not key.startswith(self._identity + "#"):
                held.update(self._lifecycle.bank_blocks(key).values())
        return held


def recorded_banks(store: EntryStore) -> list[str]:
    """The key of every bank file whose blocks an import recorded (`<project identity>#<file>`)."""
    return _bank_keys(store.get_metadata(BANKS_KEY))


def _bank_keys(value: Optional[str]) -> list[str]:
    """The recorded bank keys ([] when missing or unreadable)."""
    try:
        keys = json.loads(value) if value else []
    except ValueError:
        return []
    return [k for k in keys if isinstance(k, str)] if isinstance(keys, list) else []
