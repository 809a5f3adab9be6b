"""Bank authorship port: whose hands wrote a project's knowledge-bank files (git history, read by an adapter)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

OWN = "own"
"""Every commit that touched the file was authored under the user's own git identity."""
LOCAL = "local"
"""The file was never committed (untracked, ignored, or no repository): the user's local file."""
OTHERS = "others"
"""Somebody else committed to the file: a stranger's words until the user trusts the project."""
UNKNOWN = "unknown"
"""Git did not answer (missing, too slow): treated like OTHERS, the safe side."""


@dataclass(frozen=True)
class BankAuthors:
    """Per category file of a bank: OWN, LOCAL, OTHERS or UNKNOWN; and the other authors seen (a few)."""

    verdicts: dict[str, str] = field(default_factory=dict)
    strangers: tuple[str, ...] = ()


@runtime_checkable
class BankAuthorship(Protocol):
    """Decides, once per import, who wrote each category file of a project's knowledge bank."""

    def authors(self, project_root: str, categories: list[str], timeout_s: float) -> BankAuthors:
        """The verdict of each category's bank file (categories whose file does not exist may be left out);
        UNKNOWN for all when git takes longer than `timeout_s` per call."""
        ...
