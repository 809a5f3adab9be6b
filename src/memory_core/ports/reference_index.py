"""Reference index port: which entries cite code files (their `references`)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class ReferenceIndex(Protocol):
    """Looks up the entries whose references could match the files a session changes."""

    def cited_files(self) -> dict[str, list[str]]:
        """Return {entry id: its references} for every entry that cites at least one."""
        ...
