"""Session-ledger port: what one agent session was already shown, so nothing is injected twice in it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Iterable, Optional, Protocol, Sequence, runtime_checkable

if TYPE_CHECKING:
    from memory_core.session.journal import InjectionRecord, InjectionSummary

# Claude Code's session ids are UUIDs; the ledger takes any id that is safe as a file name (it arrives on a
# hook's stdin, so it is hostile input): no separators, no leading dot, no control characters, bounded length.
_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


class InvalidSessionId(ValueError):
    """A session id the ledger refuses (not usable as a file name)."""


def checked_session_id(session_id: object) -> str:
    """`session_id` when it is a safe ledger key; InvalidSessionId otherwise."""
    if not isinstance(session_id, str) or not _SESSION_ID.fullmatch(session_id):
        raise InvalidSessionId(f"not a usable session id: {str(session_id)[:40]!r}")
    return session_id


@dataclass(frozen=True)
class SessionShown:
    """What a session was shown: entry ids, hashes of the prompts answered, file paths answered."""

    entry_ids: frozenset[str] = frozenset()
    prompt_hashes: frozenset[str] = frozenset()
    file_paths: frozenset[str] = frozenset()

    def is_empty(self) -> bool:
        """True when nothing was shown."""
        return not (self.entry_ids or self.prompt_hashes or self.file_paths)


@runtime_checkable
class SessionLedger(Protocol):
    """A private, pruned record per session id of what the hooks injected into that session."""

    def record(self, session_id: str, entry_ids: Iterable[str] = (), prompt_hashes: Iterable[str] = (),
               file_paths: Iterable[str] = ()) -> None:
        """Add what was just shown to the session's record (kept with what others recorded meanwhile)."""
        ...

    def claim(self, session_id: str, entry_ids: Sequence[str], limit: int, prompt_hashes: Iterable[str] = (),
              file_paths: Iterable[str] = ()) -> list[str]:
        """In one step, the first `limit` of `entry_ids` the session was not shown yet, recorded as shown (with
        the prompts and files): two hooks of one session running at once never both get the same entry."""
        ...

    def shown(self, session_id: str) -> SessionShown:
        """What the session was shown so far (empty for a session never recorded)."""
        ...

    def start_over(self, session_id: str) -> None:
        """Forget what the session was shown (its context was compacted or cleared)."""
        ...

    def prune(self, max_age: timedelta, keep: int) -> int:
        """Drop sessions not recorded for longer than `max_age`, then all but the `keep` newest; how many went."""
        ...


@runtime_checkable
class InjectionJournal(Protocol):
    """A private, pruned record of every injection (the viewer's Sessions page): appended by hooks, which must
    never wait on it or fail because of it."""

    def append(self, record: "InjectionRecord") -> None:
        """Add one injection (another process appending at the same time loses nothing)."""
        ...

    def recent(self, limit: int = 200, session_id: Optional[str] = None) -> list["InjectionRecord"]:
        """The newest `limit` injections, newest first (of one session when given); a malformed record is
        skipped."""
        ...


@runtime_checkable
class InjectionSummaries(Protocol):
    """A journal that also summarises every kept injection cheaply (the Sessions list, the Overview chart)."""

    def summaries(self) -> list["InjectionSummary"]:
        """Every kept injection without its memories, newest first; a malformed record is skipped."""
        ...
