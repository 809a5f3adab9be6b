"""Test doubles for every port: in-memory, deterministic, no I/O.

The store lives in `tests.fake_entry_store`, the embedder and vector index in `tests.fake_embedding`; every
double is importable from here.
"""

from __future__ import annotations

import contextlib
import os
import threading
from datetime import datetime, timedelta, timezone
from typing import Iterable, Optional, Sequence

from memory_core.ranking.fts_query import sanitise_fts_query
from memory_core.entries.knowledge import KnowledgeEntry, Origin
from memory_core.entries.models import Entry
from memory_core.ports.context_source import ProjectContext
from memory_core.ports.session_ledger import SessionShown, checked_session_id
from tests.fake_embedding import FakeEmbedder, FakeVectorIndex
from tests.fake_entry_store import InMemoryEntryStore

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)


class FakeClock:
    """A clock that only moves when told to."""

    def __init__(self, start: datetime = T0) -> None:
        self.current = start

    def now(self) -> datetime:
        """Return the fake current time."""
        return self.current

    def advance(self, **delta: float) -> None:
        """Move time forward."""
        self.current += timedelta(**delta)


class FakeTicker:
    """A Ticker whose clock moves only when a wait times out or a test sets `now`: timeouts cost no real time."""

    def __init__(self, start: float = 0.0, real_grace_s: float = 0.0) -> None:
        self.now = start
        self.real_grace_s = real_grace_s  # > 0: give work that should finish this long, in real time, first

    def monotonic(self) -> float:
        """Return the fake current time."""
        return self.now

    def wait(self, event: threading.Event, timeout: float) -> bool:
        """True if the event is (or, within the real grace, becomes) set; else jump `timeout` ahead, False."""
        if event.is_set() or (self.real_grace_s > 0 and event.wait(self.real_grace_s)):
            return True
        self.now += max(0.0, timeout)
        return False


class FakeContextSource:
    """Returns a fixed context."""

    def __init__(self, context: Optional[ProjectContext] = None) -> None:
        self.context = context or ProjectContext()

    def collect(self, project_root: str, deadline=None) -> ProjectContext:
        """Return the fixed context."""
        return self.context


class FakeKnowledgeBankReader:
    """Returns fixed entries per (directory, origin)."""

    def __init__(self, entries: Optional[dict[str, list[KnowledgeEntry]]] = None) -> None:
        self.entries = entries or {}

    def read(self, directory: str, origin: Origin) -> list[KnowledgeEntry]:
        """Return the entries registered for this directory (origin re-stamped)."""
        return [e.model_copy(update={"origin": origin}) for e in self.entries.get(directory, [])]


class FakeProjectLayout:
    """ProjectLayout by string rules, without git: `<root>/docs/knowledge-bank`, `path:<root>`."""

    def knowledge_bank(self, project_root: str) -> str:
        """The bank directory the tests register their entries under."""
        return os.path.join(project_root, "docs", "knowledge-bank")

    def name(self, project_root: str) -> str:
        """The root's base name."""
        return os.path.basename(project_root.rstrip("/"))

    def identity(self, project_root: str) -> str:
        """A path identity, as a directory outside any repository has."""
        return "path:" + project_root


class FakeSharedWork:
    """SharedWork in memory: leases other processes hold are listed in `held_elsewhere`."""

    def __init__(self, held_elsewhere: Iterable[str] = ()) -> None:
        self.held_elsewhere = set(held_elsewhere)
        self.held: set[str] = set()
        self.claims: list[str] = []
        self.background_runs: list[str] = []

    def claim(self, task: str) -> bool:
        """Take a lease unless another process holds it."""
        self.claims.append(task)
        if any(task == t or task.startswith(t + ":") for t in self.held_elsewhere):
            return False
        self.held.add(task)
        return True

    def release(self, task: str) -> None:
        """Give a lease back."""
        self.held.discard(task)

    def busy(self, task: str) -> bool:
        """True when another process holds the lease."""
        return task in self.held_elsewhere

    def finish_in_background(self, project_root: str) -> bool:
        """Record the request for a background run."""
        self.background_runs.append(project_root)
        return True


class FakeAuditTrail:
    """An AuditTrail that keeps each project's markdown entries in a dict; `broken` makes writes fail."""

    def __init__(self) -> None:
        self.files: dict[Optional[str], dict[str, Entry]] = {}
        self.broken = False
        self.held = 0

    def for_root(self, project_root: Optional[str]) -> "FakeAuditTrail":
        """Itself, remembering which project the next writes are for."""
        self._root = project_root
        return self

    def record(self, entry: Entry, increment: bool = False) -> list[str]:
        """Keep the entry's current state under the project."""
        if self.broken:
            raise OSError("read-only file system")
        self.files.setdefault(getattr(self, "_root", None), {})[entry.id] = entry
        return [str(getattr(self, "_root", None))]

    def forget(self, entry_id: str, category: str) -> list[str]:
        """Drop the entry from the project."""
        if self.broken:
            raise OSError("read-only file system")
        self.files.get(getattr(self, "_root", None), {}).pop(entry_id, None)
        return []

    def exclusive(self):
        """A no-op lock that counts how often it was held."""
        self.held += 1
        return contextlib.nullcontext()


__all__ = ["FakeAuditTrail", "FakeClock", "FakeContextSource", "FakeEmbedder", "FakeKnowledgeBankReader",
           "FakeProjectLayout", "FakeSharedWork", "FakeTicker", "FakeVectorIndex", "InMemoryEntryStore", "T0",
           "sanitise_fts_query"]


class FakeSessionLedger:
    """A SessionLedger in memory, timed by an injected clock."""

    def __init__(self, clock: Optional[FakeClock] = None) -> None:
        self.clock = clock or FakeClock()
        self.sessions: dict[str, tuple[SessionShown, datetime]] = {}

    def record(self, session_id: str, entry_ids: Iterable[str] = (), prompt_hashes: Iterable[str] = (),
               file_paths: Iterable[str] = ()) -> None:
        """Add to the session's record and mark it recorded now."""
        old = self.shown(session_id)
        new = SessionShown(old.entry_ids | set(entry_ids), old.prompt_hashes | set(prompt_hashes),
                           old.file_paths | set(file_paths))
        self.sessions[session_id] = (new, self.clock.now())

    def claim(self, session_id: str, entry_ids: Sequence[str], limit: int, prompt_hashes: Iterable[str] = (),
              file_paths: Iterable[str] = ()) -> list[str]:
        """The first `limit` entries not shown yet, recorded with the prompts and files."""
        seen = self.shown(session_id).entry_ids
        fresh = [i for i in dict.fromkeys(entry_ids) if i not in seen][:max(limit, 0)]
        self.record(session_id, fresh, prompt_hashes, file_paths)
        return fresh

    def shown(self, session_id: str) -> SessionShown:
        """The session's record, empty when there is none."""
        entry = self.sessions.get(checked_session_id(session_id))
        return entry[0] if entry else SessionShown()

    def start_over(self, session_id: str) -> None:
        """Forget the session."""
        self.sessions.pop(checked_session_id(session_id), None)

    def prune(self, max_age: timedelta, keep: int) -> int:
        """Drop old sessions, then all but the newest `keep`."""
        cutoff = self.clock.now() - max_age
        newest_first = sorted(self.sessions, key=lambda sid: (self.sessions[sid][1], sid), reverse=True)
        doomed = [sid for index, sid in enumerate(newest_first)
                  if self.sessions[sid][1] < cutoff or index >= max(0, keep)]
        for sid in doomed:
            del self.sessions[sid]
        return len(doomed)
