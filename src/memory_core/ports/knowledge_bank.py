"""Knowledge-bank reader port: parses the markdown category files of one directory."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:  # the parsed entries are pydantic; the hook's semantic path never loads them
    from memory_core.entries.knowledge import KnowledgeEntry, Origin


@runtime_checkable
class KnowledgeBankReader(Protocol):
    """Reads `anti-patterns.md`, `heuristics.md` and `patterns.md` of a directory."""

    def read(self, directory: str, origin: Origin) -> list[KnowledgeEntry]:
        """Return the entries in file order per category; missing files yield nothing."""
        ...
