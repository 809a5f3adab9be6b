"""The marker of a project's completed first import (read on every session start, so kept import-light)."""

from __future__ import annotations

import os

from memory_core.ports.audit_watermark import AuditWatermark
from memory_core.ports.entry_store import EntryStore


def import_marker(project_root: str) -> str:
    """The `_metadata` key that records a project's completed first import."""
    return f"imported:{os.path.abspath(project_root)}"


def is_imported(store: EntryStore, project_root: str) -> bool:
    """Whether this project's knowledge bank was fully imported into a store that holds entries, and the store
    holds every write its markdown recorded (otherwise the next import reads the markdown again)."""
    if isinstance(store, AuditWatermark) and store.markdown_ahead():
        return False
    return store.get_metadata(import_marker(project_root)) is not None and store.count() > 0
