"""Entry ids as people type them: the full 16 hex characters or a unique prefix of at least 4 (as git does)."""

from __future__ import annotations

import re
from typing import Optional

from memory_core.errors import InvalidEntry
from memory_core.ports.entry_store import EntryStore

ID_LENGTH = 16
MIN_PREFIX = 4
SHOWN_CANDIDATES = 10
_HEX = re.compile(r"[0-9a-f]+")


class AmbiguousId(InvalidEntry):
    """A prefix that more than one entry's id starts with; `candidates` holds the first few of them."""

    def __init__(self, prefix: str, candidates: list[str]) -> None:
        super().__init__("id", f"{prefix} is ambiguous: more than one entry's id starts with it")
        self.prefix = prefix
        self.candidates = candidates


def check_entry_id(text: object) -> str:
    """The id or prefix in lower case; InvalidEntry("id", ...) when it is not 4 to 16 hex characters."""
    value = text.strip().lower() if isinstance(text, str) else ""
    if not _HEX.fullmatch(value) or len(value) > ID_LENGTH:
        raise InvalidEntry("id", f"must be {MIN_PREFIX} to {ID_LENGTH} hex characters (0-9, a-f)")
    if len(value) < MIN_PREFIX:
        raise InvalidEntry("id", f"a prefix needs at least {MIN_PREFIX} characters")
    return value


def resolve_entry_id(store: EntryStore, text: object) -> Optional[str]:
    """The full id that `text` (an id or a unique prefix) names, or None when no entry matches; InvalidEntry for
    a malformed id, AmbiguousId for a prefix several ids share."""
    value = check_entry_id(text)
    if len(value) == ID_LENGTH:
        return value  # a full id needs no lookup: the command itself says when there is no such entry
    found = store.ids_with_prefix(value, SHOWN_CANDIDATES + 1)
    if len(found) > 1:
        raise AmbiguousId(value, found[:SHOWN_CANDIDATES])
    return found[0] if found else None
