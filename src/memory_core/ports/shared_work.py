"""Shared-work port: expensive work that many processes could do is done by one, the others use what exists."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

IMPORT_TASK = "import"
VECTORS_TASK = "vectors"


@runtime_checkable
class SharedWork(Protocol):
    """Leases on named tasks across processes, and a background run that finishes what a session left."""

    def claim(self, task: str) -> bool:
        """Take the lease on `task` without waiting; False when another process holds it."""
        ...

    def release(self, task: str) -> None:
        """Give a lease back (a process that dies gives its leases back by itself)."""
        ...

    def busy(self, task: str) -> bool:
        """True when another process holds the lease on `task` now."""
        ...

    def finish_in_background(self, project_root: str) -> bool:
        """Start one background run that finishes the import, the embeddings and the vector cache; False when
        none was started (one is already running, or background work is switched off)."""
        ...
