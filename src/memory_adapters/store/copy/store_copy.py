"""Copying one entry store into another, losslessly and in batches (`iflow-memory migrate`, issue 14).

Each side is a `CopyTables` (`tables`; `sqlite_tables` or `postgres_tables`, picked by `store_tables`) that reads
and writes every column as stored, the ones the merge rules never copy too (recall counters and times, vectors as
float32 bytes, `source_user`, anchors), so nothing goes through the merge rules, then the entries' lives (history,
retired entries, aliases of edited ids, bank blocks; ADR 26). The target is compared before it is written: a
second run writes nothing, and a run cut short is finished by the next one. The cached query vectors are not
copied.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Callable, Optional, Sequence

from memory_adapters.store.copy.tables import CopiedEntry, CopiedLifecycle, CopyTables
from memory_core.embedding.space import SPACE_KEYS, STAGED_KEYS
from memory_core.entries.records import HistoryEvent, RetiredEntry

DEFAULT_BATCH = 500
INTERNAL_KEYS = frozenset({"schema_version", "vectors_version", "database_id"})
"""`_metadata` keys each database keeps for itself: never copied."""


class CopyRefused(ValueError):
    """The copy cannot be made as asked (the target is the source, or holds another embedding space)."""


@dataclass
class CopyReport:
    """What a copy wrote (or, in a dry run, would write) and what the target already held."""

    new: int = 0
    updated: int = 0
    unchanged: int = 0
    unreadable: int = 0
    vectors: int = 0  # source entries with a vector
    staged: int = 0  # source entries with a staged vector
    tombstones_copied: int = 0
    tombstones_unchanged: int = 0
    removed: int = 0  # target entries a source tombstone deleted
    metadata_copied: list[str] = field(default_factory=list)
    metadata_unchanged: int = 0
    batches: int = 0  # transactions that wrote entries
    history_copied: int = 0  # history events the target lacked
    retired_copied: int = 0  # retired entries the target did not hold as the source does
    unretired: int = 0  # retired rows of the target whose entry is live in the source
    aliases_copied: int = 0
    bank_blocks_copied: int = 0  # bank files whose recorded blocks differed

    @property
    def lifecycle_copied(self) -> int:
        """How many history events, retired entries, aliases and bank records the copy wrote."""
        return (self.history_copied + self.retired_copied + self.unretired + self.aliases_copied
                + self.bank_blocks_copied)

    @property
    def changed(self) -> bool:
        """Whether the copy wrote (or would write) anything."""
        return bool(self.new or self.updated or self.tombstones_copied or self.removed or self.metadata_copied
                    or self.lifecycle_copied)


def to_second(when: datetime) -> datetime:
    """An aware UTC time to the second: what both stores keep."""
    when = when if when.tzinfo else when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc).replace(microsecond=0)


def _event_key(event: HistoryEvent) -> tuple:
    """What makes two events the same one, as both stores keep them (times to the second)."""
    return (event.entry_id, event.action, to_second(event.at), event.actor,
            json.dumps(event.detail, sort_keys=True, default=str))


def _retired_key(item: RetiredEntry) -> RetiredEntry:
    return replace(item, retired_at=to_second(item.retired_at))


def check_spaces(source: dict[str, str], target: dict[str, str]) -> None:
    """CopyRefused when both stores record an embedding space (pinned, or staged by a re-embed) and they differ:
    the target's vectors and the source's could never be compared."""
    for keys, what in ((SPACE_KEYS, "pinned"), (STAGED_KEYS, "re-embed (staged)")):
        mine, theirs = _space(source, keys), _space(target, keys)
        if mine and theirs and mine != theirs:
            raise CopyRefused(f"the target's {what} embedding space is {'/'.join(theirs)}, the source's is "
                              f"{'/'.join(mine)}: their vectors cannot be mixed (copy into an empty database, or "
                              "re-embed one into the other's space first: set its embedding provider and run `iflow-memory embed`)")


def _space(metadata: dict[str, str], keys: tuple[str, ...]) -> Optional[tuple[str, ...]]:
    values = tuple(metadata.get(key) or "" for key in keys)
    return values if all(values) and values[0] != "none" else None


class EmptyCopyTables:
    """A target that does not exist yet, for a dry run that must not create it."""

    keeps_source_user = False

    def __init__(self, description: str, keeps_source_user: bool = False) -> None:
        self.description = description
        self.keeps_source_user = keeps_source_user

    def identity(self) -> tuple:
        """Unlike any database's."""
        return ("empty", id(self))

    def count(self) -> int:
        """No entries."""
        return 0

    def entry_page(self, after: int, limit: int) -> tuple[list[CopiedEntry], int, int]:
        """No rows."""
        return [], after, 0

    def entries_by_id(self, ids: Sequence[str]) -> dict[str, CopiedEntry]:
        """None of them."""
        return {}

    def tombstones(self) -> dict[str, datetime]:
        """No tombstones."""
        return {}

    def metadata(self) -> dict[str, str]:
        """No metadata."""
        return {}

    def write_entries(self, entries: Sequence[CopiedEntry]) -> None:
        """A dry run never writes."""
        raise AssertionError("a dry run writes nothing")

    def write_tombstones(self, tombstones: dict[str, datetime], removable: set[str]) -> int:
        """A dry run never writes."""
        raise AssertionError("a dry run writes nothing")

    def set_metadata(self, key: str, value: str) -> None:
        """A dry run never writes."""
        raise AssertionError("a dry run writes nothing")

    def lifecycle(self) -> CopiedLifecycle:
        """No history."""
        return CopiedLifecycle()

    def write_lifecycle(self, owed: CopiedLifecycle, unretired: set[str]) -> None:
        """A dry run never writes."""
        raise AssertionError("a dry run writes nothing")


class StoreCopy:
    """Copies `source` into `target` in batches of `batch_size` entries; `source_user` names who wrote the entries
    a store without that column hands to one with it."""

    def __init__(self, source: CopyTables, target: CopyTables, source_user: str,
                 batch_size: int = DEFAULT_BATCH) -> None:
        self.source, self.target = source, target
        self._source_user = source_user
        self._batch = max(1, int(batch_size))

    def check(self) -> None:
        """CopyRefused when the target is the source or holds another embedding space."""
        if self.source.identity() == self.target.identity():
            raise CopyRefused(f"the target is the source ({self.source.description}): nothing to copy")
        check_spaces(self.source.metadata(), self.target.metadata())

    def run(self, dry_run: bool = False, progress: Callable[[int, int], None] = lambda done, total: None
            ) -> CopyReport:
        """Copy entries, then tombstones, then metadata (the pinned space last: PostgreSQL builds its vector index
        then); with `dry_run`, only count what would be written."""
        self.check()
        report = CopyReport()
        self._entries(report, dry_run, progress)
        self._tombstones(report, dry_run)
        self._lifecycle(report, dry_run)
        self._metadata(report, dry_run)
        return report

    def _entries(self, report: CopyReport, dry_run: bool, progress: Callable[[int, int], None]) -> None:
        total, done, after = self.source.count(), 0, 0
        while True:
            page, after, rows = self.source.entry_page(after, self._batch)
            if not rows:
                return
            done += rows
            report.unreadable += rows - len(page)
            held = self.target.entries_by_id([copied.entry.id for copied in page])
            changed = []
            for copied in page:
                report.vectors += copied.vector is not None
                report.staged += copied.staged is not None
                wanted = self._as_target(copied, held.get(copied.entry.id))
                if held.get(copied.entry.id) == wanted:
                    report.unchanged += 1
                    continue
                changed.append(wanted)
                report.updated += copied.entry.id in held
                report.new += copied.entry.id not in held
            if changed and not dry_run:
                self.target.write_entries(changed)
                report.batches += 1
            progress(done, total)

    def _as_target(self, copied: CopiedEntry, held: Optional[CopiedEntry]) -> CopiedEntry:
        """The entry as the target must hold it: times to the second; `source_user` kept from a store that has
        it, else the one the target already records, else the configured one."""
        entry = copied.entry
        entry = replace(entry, created_at=to_second(entry.created_at), updated_at=to_second(entry.updated_at),
                        last_recalled_at=entry.last_recalled_at and to_second(entry.last_recalled_at),
                        has_embedding=copied.vector is not None)
        user = None
        if self.target.keeps_source_user:
            if self.source.keeps_source_user:
                user = copied.source_user
            else:
                user = (held.source_user if held else None) or self._source_user
        return replace(copied, entry=entry, source_user=user)

    def _tombstones(self, report: CopyReport, dry_run: bool) -> None:
        held = {key: to_second(when) for key, when in self.target.tombstones().items()}
        wanted = {key: to_second(when) for key, when in self.source.tombstones().items()}
        owed = {key: when for key, when in wanted.items() if held.get(key) != when}
        report.tombstones_copied, report.tombstones_unchanged = len(owed), len(wanted) - len(owed)
        items = sorted(owed.items())
        for start in range(0, len(items), self._batch):
            batch = dict(items[start:start + self._batch])
            # An entry the source deleted but still holds (written again since) is copied, never deleted.
            removable = set(batch) - set(self.source.entries_by_id(list(batch)))
            if dry_run:
                held_entries = self.target.entries_by_id(sorted(removable))
                report.removed += sum(1 for key, copied in held_entries.items()
                                      if to_second(copied.entry.updated_at) <= batch[key])
            else:
                report.removed += self.target.write_tombstones(batch, removable)

    def _lifecycle(self, report: CopyReport, dry_run: bool) -> None:
        """What the target lacks of the source's history (events are only ever added), retired entries (held as
        the source holds them), aliases and bank blocks; after the entries, so a retirement wins over the live
        row an earlier copy left."""
        source, target = self.source.lifecycle(), self.target.lifecycle()
        held_events = {_event_key(event) for event in target.events}
        held_retired = {item.entry.id: _retired_key(item) for item in target.retired}
        source_retired = {item.entry.id for item in source.retired}
        maybe_live = sorted(set(held_retired) - source_retired)
        owed = CopiedLifecycle(
            [event for event in source.events if _event_key(event) not in held_events],
            [item for item in source.retired if held_retired.get(item.entry.id) != _retired_key(item)],
            {old: new for old, new in source.aliases.items() if target.aliases.get(old) != new},
            {bank: blocks for bank, blocks in source.bank_blocks.items() if target.bank_blocks.get(bank) != blocks})
        unretired = set(self.source.entries_by_id(maybe_live)) if maybe_live else set()
        report.history_copied, report.retired_copied = len(owed.events), len(owed.retired)
        report.aliases_copied, report.bank_blocks_copied = len(owed.aliases), len(owed.bank_blocks)
        report.unretired = len(unretired)
        if report.lifecycle_copied and not dry_run:
            self.target.write_lifecycle(owed, unretired)

    def _metadata(self, report: CopyReport, dry_run: bool) -> None:
        source, target = self.source.metadata(), self.target.metadata()
        keys = [key for key in source if key not in INTERNAL_KEYS]
        for group in (STAGED_KEYS, SPACE_KEYS):
            if not _space(source, group) and _space(target, group):
                keys = [key for key in keys if key not in group]  # "nothing pinned" never unpins the target
        # The space's keys go last, its dimensions at the very end: pinning them builds PostgreSQL's vector index.
        order = {key: index for index, key in enumerate((*STAGED_KEYS, *SPACE_KEYS))}
        for key in sorted(keys, key=lambda k: (order.get(k, -1), k)):
            if target.get(key) == source[key]:
                report.metadata_unchanged += 1
                continue
            report.metadata_copied.append(key)
            if not dry_run:
                self.target.set_metadata(key, source[key])
