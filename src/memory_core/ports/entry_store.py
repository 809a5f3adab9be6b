"""Entry store port (the repository of entries) and its optional embedding capability."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple, Optional, Protocol, Sequence, runtime_checkable

from memory_core.entries.records import Entry, EntryStats, ImportOutcome, UpsertOutcome

if TYPE_CHECKING:
    from memory_core.entries.browsing import BrowsePage, BrowseQuery, Tallies
    from memory_core.entries.models import EntryDraft


@runtime_checkable
class EntryStore(Protocol):
    """Persists entries keyed by content hash."""

    def upsert(self, draft: EntryDraft, now: datetime) -> UpsertOutcome:
        """Insert the entry, or reinforce the existing one (observation count +1)."""
        ...

    def import_entries(self, items: Sequence[tuple[EntryDraft, Optional[datetime]]],
                       now: datetime) -> list[ImportOutcome]:
        """Import many entries atomically; each item is (draft, updated_at or None)."""
        ...

    def get(self, entry_id: str) -> Optional[Entry]:
        """Return one entry, or None."""
        ...

    def all_entries(self) -> list[Entry]:
        """Return every entry (without vectors)."""
        ...

    def ids_with_prefix(self, prefix: str, limit: int) -> list[str]:
        """Return up to `limit` ids that start with `prefix`, in id order."""
        ...

    def get_many(self, entry_ids: Sequence[str]) -> list[Entry]:
        """Return the entries with these ids, in the order given (unknown ids are left out)."""
        ...

    def ranking_stats(self, scopes: Optional[Sequence[str]] = None) -> list[EntryStats]:
        """Return the ranking fields of every entry (the hot path of each session start); with `scopes`, only
        universal entries and those scoped to one of them."""
        ...

    def count(self) -> int:
        """Return how many entries are stored."""
        ...

    def delete(self, entry_id: str) -> bool:
        """Delete one entry; True when it existed."""
        ...

    def set_scope(self, entry_id: str, scope: Optional[str]) -> bool:
        """Change which projects' sessions see an entry (None: every project's); False when it is unknown."""
        ...

    def add_scope(self, entry_id: str, scope: str) -> None:
        """Let one more project's sessions see a scoped entry (its bank holds it too)."""
        ...

    def record_recall(self, entry_ids: Sequence[str], when: datetime) -> None:
        """Increment recall_count and set last_recalled_at for these entries."""
        ...

    def get_metadata(self, key: str) -> Optional[str]:
        """Read a database-level setting from `_metadata`."""
        ...

    def set_metadata(self, key: str, value: str) -> None:
        """Write a database-level setting to `_metadata`."""
        ...


@runtime_checkable
class EmbeddingStore(Protocol):
    """A store that also keeps one embedding vector per entry (in a format of its own: the core hands floats)."""

    def set_vector(self, entry_id: str, vector: Sequence[float]) -> None:
        """Store the vector of one entry (an unknown id stores nothing)."""
        ...

    def pending_ids(self, limit: int) -> list[str]:
        """Return up to `limit` ids of entries that have no vector yet."""
        ...


@runtime_checkable
class BatchVectorStore(Protocol):
    """An embedding store that can keep several vectors in one transaction."""

    def set_vectors(self, items: Sequence[tuple[str, Sequence[float]]]) -> None:
        """Store (entry id, vector) pairs together."""
        ...


class StoredState(NamedTuple):
    """What an import compares for an entry already stored."""

    id: str
    observation_count: int
    labelled: bool
    """The stored entry has keywords."""
    scope: Optional[str]


@runtime_checkable
class ImportStateReader(Protocol):
    """A store that tells an import what it holds without building whole entries (a resumed import of a big bank
    compares thousands of them, within a session's deadline)."""

    def import_states(self, entry_ids: Sequence[str]) -> list[StoredState]:
        """The states of the well-formed stored entries among these ids (a malformed row is left out, so the
        import writes it again)."""
        ...


@runtime_checkable
class EntryBrowser(Protocol):
    """A store that pages, filters and counts its entries itself (the viewer, at 10k entries and more)."""

    def browse(self, query: "BrowseQuery") -> "BrowsePage":
        """One page of the live entries matching `query`, in its order (ties by id), with the total that match."""
        ...

    def tallies(self, top: int = 10) -> "Tallies":
        """Counts by category, project and source, entries added per day, recalled or not, and the `top` most
        recalled and oldest never-shown entries."""
        ...
