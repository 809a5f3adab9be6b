"""One store's tables as a side of a copy (`CopyTables`), and the entry with everything stored beside it that the
two sides hand over (`CopiedEntry`). The copy (`store_copy`) and each store's side depend on this module only."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Optional, Protocol, Sequence

from memory_core.entries.records import Entry, HistoryEvent, RetiredEntry


@dataclass(frozen=True)
class CopiedEntry:
    """One entry with everything stored beside it, as a copy moves it."""

    entry: Entry
    vector: Optional[bytes] = None  # float32 little-endian
    staged: Optional[bytes] = None  # the vector of a re-embed in progress
    scopes: tuple[str, ...] = ()  # the extra scopes (entry_scopes), sorted
    source_user: Optional[str] = None  # PostgreSQL only


@dataclass(frozen=True)
class CopiedLifecycle:
    """What a store keeps of its entries' lives beside the entries (ADR 26), as a copy moves it."""

    events: list[HistoryEvent] = field(default_factory=list)
    retired: list[RetiredEntry] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)  # old id: the id it resolves to
    bank_blocks: dict[str, dict[tuple[str, str], str]] = field(default_factory=dict)  # bank: {(category, name): id}


class CopyTables(Protocol):
    """One store's tables as a side of a copy."""

    description: str  # "SQLite /path/memory.db" or the PostgreSQL URL with its password masked
    keeps_source_user: bool

    def identity(self) -> tuple:
        """A value equal for two handles on the same database, and only for them."""
        ...

    def count(self) -> int:
        """The number of entry rows."""
        ...

    def entry_page(self, after: int, limit: int) -> tuple[list[CopiedEntry], int, int]:
        """Up to `limit` rows in storing order after position `after`: (readable entries, the last row's position,
        rows read)."""
        ...

    def entries_by_id(self, ids: Sequence[str]) -> dict[str, CopiedEntry]:
        """The stored entries among these ids."""
        ...

    def tombstones(self) -> dict[str, datetime]:
        """Every deleted entry's id and when it was deleted."""
        ...

    def metadata(self) -> dict[str, str]:
        """Every `_metadata` value."""
        ...

    def write_entries(self, entries: Sequence[CopiedEntry]) -> None:
        """Store these entries exactly as given (scopes and staged vector replaced), in one transaction."""
        ...

    def write_tombstones(self, tombstones: dict[str, datetime], removable: set[str]) -> int:
        """Record these tombstones and delete the entries of `removable` ids written before their delete, in one
        transaction; returns how many entries that deleted."""
        ...

    def set_metadata(self, key: str, value: str) -> None:
        """Write one `_metadata` value."""
        ...

    def lifecycle(self) -> CopiedLifecycle:
        """The history, retired entries, aliases and bank blocks."""
        ...

    def write_lifecycle(self, owed: CopiedLifecycle, unretired: set[str]) -> None:
        """Add these events and aliases, hold these retired entries exactly (a live row of one goes), replace
        these banks' blocks, and forget the retired rows of `unretired` ids (live in the source)."""
        ...
