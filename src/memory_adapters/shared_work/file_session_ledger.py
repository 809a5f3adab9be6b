"""FileSessionLedger: one private JSON file per session under `<store>/sessions/`, changed under one `flock`.

Hooks of one session can run at once (a prompt and a file read), and two processes that read, add and write
the same file would lose one another's records; so every change holds an exclusive `flock` on
`sessions/.lock`, and a file is replaced by renaming a new one over it, so a reader never sees half a file.
Readers take no lock. Times come from the injected clock, not file times, so pruning is testable and a
`touch` cannot keep a session alive.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
from datetime import datetime, timedelta
from typing import Iterable, Iterator, Sequence

from memory_adapters.fs.private_files import CacheInvalid, open_private_dir
from memory_adapters.fs.safe_files import UnsafeFile, atomic_write_bytes, read_text_no_follow
from memory_adapters.fs.temp_files import remove_abandoned_temps, unlink_quietly
from memory_core.errors import StorageError
from memory_core.ports.clock import Clock
from memory_core.ports.session_ledger import InvalidSessionId, SessionShown, checked_session_id

SESSIONS_DIR = "sessions"
LOCK_NAME = ".lock"  # session ids never start with a dot, so it cannot collide with one
SUFFIX = ".json"
FORMAT = 1
MAX_ITEMS = 2000  # per kind: a runaway session keeps its newest records, not an ever-growing file
FILE_LIMIT = 4 << 20
_KINDS = ("entries", "prompts", "files")


class FileSessionLedger:
    """Implements SessionLedger with private files in the global store."""

    def __init__(self, global_store: str, clock: Clock) -> None:
        self.directory = os.path.join(global_store, SESSIONS_DIR)
        self.clock = clock

    def record(self, session_id: str, entry_ids: Iterable[str] = (), prompt_hashes: Iterable[str] = (),
               file_paths: Iterable[str] = ()) -> None:
        """Add what was shown, under the lock, to what the file holds now."""
        path = self._path(session_id)
        added = dict(zip(_KINDS, (list(entry_ids), list(prompt_hashes), list(file_paths))))
        with self._locked():
            data = self._load(path)
            for kind in _KINDS:
                merged = list(dict.fromkeys(data[kind] + [str(item) for item in added[kind]]))
                data[kind] = merged[-MAX_ITEMS:]
            data["updated"] = self.clock.now().isoformat()
            self._write(path, data)

    def claim(self, session_id: str, entry_ids: Sequence[str], limit: int, prompt_hashes: Iterable[str] = (),
              file_paths: Iterable[str] = ()) -> list[str]:
        """Under the lock: the first `limit` entries not shown yet, added with the prompts and files."""
        path = self._path(session_id)
        with self._locked():
            data = self._load(path)
            seen = set(data["entries"])
            fresh = [i for i in dict.fromkeys(entry_ids) if i not in seen][:max(limit, 0)]
            added = dict(zip(_KINDS, (fresh, [str(h) for h in prompt_hashes], [str(f) for f in file_paths])))
            for kind in _KINDS:
                data[kind] = list(dict.fromkeys(data[kind] + added[kind]))[-MAX_ITEMS:]
            data["updated"] = self.clock.now().isoformat()
            self._write(path, data)
        return fresh

    def shown(self, session_id: str) -> SessionShown:
        """What the session's file holds (empty when there is none or it is unreadable)."""
        path = self._path(session_id)
        if os.path.islink(self.directory):
            raise StorageError(f"{self.directory}: {_reason(OSError(errno.ELOOP, 'link'))}")
        data = self._load(path)
        return SessionShown(frozenset(data["entries"]), frozenset(data["prompts"]), frozenset(data["files"]))

    def start_over(self, session_id: str) -> None:
        """Remove the session's file."""
        path = self._path(session_id)
        if not os.path.lexists(self.directory):
            return  # only a record creates the ledger (ADR 14: only writes create a store)
        with self._locked():
            unlink_quietly(path)

    def prune(self, max_age: timedelta, keep: int) -> int:
        """Remove the files of sessions idle longer than `max_age`, then of all but the `keep` newest."""
        cutoff = self.clock.now() - max_age
        if not os.path.lexists(self.directory):
            return 0
        with self._locked():
            dated = [(self._updated(path), path) for path in self._session_files()]
            newest_first = sorted(((when, path) for when, path in dated if when is not None), reverse=True)
            doomed = [path for when, path in dated if when is None]  # unreadable: nothing worth keeping
            doomed += [path for index, (when, path) in enumerate(newest_first)
                       if when < cutoff or index >= max(0, keep)]
            for path in doomed:
                unlink_quietly(path)
        return len(doomed)

    def _path(self, session_id: str) -> str:
        return os.path.join(self.directory, checked_session_id(session_id) + SUFFIX)

    def _session_files(self) -> list[str]:
        try:
            names = os.listdir(self.directory)
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise StorageError(f"{self.directory}: {exc.strerror}") from exc
        found = []
        for name in names:
            if name.endswith(SUFFIX):
                with contextlib.suppress(InvalidSessionId):
                    found.append(self._path(name[: -len(SUFFIX)]))
        return found

    def _updated(self, path: str) -> "datetime | None":
        """When the session was last recorded; None when its file is unreadable or holds no usable time."""
        try:
            when = datetime.fromisoformat(self._load(path)["updated"])
        except (StorageError, TypeError, ValueError):
            return None
        return when if when.tzinfo is not None else None  # a naive time cannot be compared with the clock's

    def _load(self, path: str) -> dict:
        """The file's record, or an empty one when it is missing or corrupt; StorageError for a link."""
        empty = {kind: [] for kind in _KINDS} | {"updated": None}
        try:
            data = json.loads(read_text_no_follow(path, FILE_LIMIT))
        except FileNotFoundError:
            return empty
        except UnsafeFile as exc:
            raise StorageError(str(exc)) from exc
        except (OSError, ValueError):
            return empty  # unreadable or corrupt: the session starts over rather than failing every hook
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return empty
        for kind in _KINDS:
            items = data.get(kind)
            empty[kind] = [item for item in items if isinstance(item, str)] if isinstance(items, list) else []
        empty["updated"] = data.get("updated") if isinstance(data.get("updated"), str) else None
        return empty

    def _write(self, path: str, data: dict) -> None:
        payload = json.dumps({"format": FORMAT, **data}, ensure_ascii=False).encode("utf-8", "surrogatepass")
        remove_abandoned_temps(path)
        try:
            # no fsync: a record lost to a power cut only means a learning may be shown once more
            atomic_write_bytes(path, payload, mode=0o600, sync=False)
        except OSError as exc:
            raise StorageError(f"{path}: {exc.strerror or exc}") from exc

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold the ledger's exclusive lock, creating the private sessions directory first."""
        try:
            os.makedirs(os.path.dirname(self.directory), mode=0o700, exist_ok=True)
            os.close(open_private_dir(self.directory, None, create=True))  # 0700, ours, not a link
            fd = os.open(os.path.join(self.directory, LOCK_NAME),
                         os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except (OSError, CacheInvalid) as exc:
            raise StorageError(f"{self.directory}: {_reason(exc)}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # waits: a holder only reads and renames one small file
            yield
        finally:
            os.close(fd)  # closing the only descriptor drops the flock


def _reason(exc: Exception) -> str:
    if isinstance(exc, OSError) and exc.errno in (errno.ELOOP, errno.ENOTDIR):
        return "is a symbolic link or not a directory; the session ledger never writes through one"
    return getattr(exc, "strerror", None) or str(exc)
