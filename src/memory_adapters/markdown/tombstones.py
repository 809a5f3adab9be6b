"""The store's list of deleted entries, kept beside its markdown (`deleted-entries.txt`), so a rebuild after
the database is lost never revives an entry that another project's knowledge bank still holds."""

from __future__ import annotations

import os
import re
from datetime import datetime, timezone
from typing import Optional

from memory_adapters.fs.safe_files import atomic_write_text, read_text_no_follow

FILENAME = "deleted-entries.txt"
HEADER = ("# Deleted entries\n\nEntries deleted with iflow-memory. A rebuild of the database keeps them deleted even "
          "where a knowledge bank still holds them.\nManaged by iflow-memory; remove a line to allow an entry back.\n")
_LINE = re.compile(r"^- ([0-9a-f]{16}) deleted (\S+)$")


def _path(store_dir: str) -> str:
    return os.path.join(store_dir, FILENAME)


def read_tombstones(store_dir: str) -> dict[str, datetime]:
    """{entry id: when it was deleted} from the store's list (empty when there is none)."""
    try:
        text = read_text_no_follow(_path(store_dir))
    except FileNotFoundError:
        return {}
    found: dict[str, datetime] = {}
    for line in text.splitlines():
        match = _LINE.match(line.strip())
        if match:
            try:
                when = datetime.fromisoformat(match.group(2).replace("Z", "+00:00"))
            except ValueError:
                continue
            found[match.group(1)] = when if when.tzinfo else when.replace(tzinfo=timezone.utc)
    return found


def _write(store_dir: str, tombstones: dict[str, datetime]) -> None:
    lines = [f"- {entry_id} deleted {when.astimezone(timezone.utc).isoformat().replace('+00:00', 'Z')}"
             for entry_id, when in sorted(tombstones.items())]
    atomic_write_text(_path(store_dir), HEADER + ("\n" + "\n".join(lines) + "\n" if lines else ""))


def add_tombstone(store_dir: str, entry_id: str, when: Optional[datetime] = None) -> None:
    """Record that an entry was deleted (call under the markdown lock)."""
    tombstones = read_tombstones(store_dir)
    tombstones[entry_id] = when or datetime.now(timezone.utc)
    _write(store_dir, tombstones)


def drop_tombstone(store_dir: str, entry_id: str) -> None:
    """Forget a deletion, the entry having been written again (call under the markdown lock)."""
    if not os.path.exists(_path(store_dir)):
        return
    tombstones = read_tombstones(store_dir)
    if tombstones.pop(entry_id, None) is not None:
        _write(store_dir, tombstones)
