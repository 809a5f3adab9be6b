"""Anchor-cache port: per project, what each cited file held when it was last read, by file identity (ADR 26),
so a session start does not re-hash files that did not change."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional, Protocol, runtime_checkable

from memory_core.ports.code_files import FileIdentity


@dataclass(frozen=True)
class CachedFile:
    """One file as last read: its identity then, its git blob id, and the hash of each cited region in it
    (reference → hash; None when the region was not found)."""

    identity: FileIdentity
    blob: str
    regions: Mapping[str, Optional[str]] = field(default_factory=dict)


@runtime_checkable
class AnchorCache(Protocol):
    """Keeps the files of one project as last read, between checks."""

    def load(self, project: str) -> dict[str, CachedFile]:
        """What the last check of this project kept, by repository-relative path ({} when nothing or unusable)."""
        ...

    def save(self, project: str, files: Mapping[str, CachedFile]) -> None:
        """Replace what is kept for this project (best effort: a failure only costs a re-read next time)."""
        ...
