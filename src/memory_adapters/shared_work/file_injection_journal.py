"""FileInjectionJournal: one private JSON file per injection under `<store>/journal/`, named to sort by time.

Hooks of many sessions append at once; a file per record (a unique name, written to a temp file and renamed)
needs no lock and loses nothing. Pruning to the newest KEEP and MAX_AGE happens only when a listing shows the
journal past a bound (SLACK more files, or a file a day older than MAX_AGE), so an append is one small write
and one directory listing. A record's file never changes once named, so its summary (what the Sessions list and
the Overview chart need) is kept per process and file name: a listing tells which records to read anew. Reading refuses a linked directory and skips any file that is not a private regular
file of this user, or is not a record.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import threading
from datetime import datetime, timedelta, timezone
from typing import Any, Optional

from memory_adapters.fs.private_files import CacheInvalid, open_private_dir, open_private_file
from memory_adapters.fs.temp_files import TEMP_SUFFIX, pid_alive, unlink_quietly
from memory_core.errors import StorageError
from memory_core.ports.clock import Clock
from memory_core.session.journal import InjectionRecord, InjectionSummary

JOURNAL_DIR = "journal"
SUFFIX = ".json"
KEEP = 1000
MAX_AGE = timedelta(days=30)
SLACK = 100
"""Files past KEEP before a prune runs: pruning lists and deletes, an append should not."""
AGE_SLACK = timedelta(days=1)
RECORD_LIMIT = 1 << 20
_STAMP = "%Y%m%dT%H%M%S%fZ"
_kept_lock = threading.Lock()
_kept: dict[str, dict[str, Optional[InjectionSummary]]] = {}
"""Journal directory -> {record file name: its summary, or None for a file that holds none}."""


class FileInjectionJournal:
    """Implements InjectionJournal with private files in the global store."""

    def __init__(self, global_store: str, clock: Clock) -> None:
        self.directory = os.path.join(global_store, JOURNAL_DIR)
        self.clock = clock

    def append(self, record: InjectionRecord) -> None:
        """Write the record as a new file (a temp file renamed, both inside the directory's descriptor, so a link
        swapped in meanwhile is never followed), then prune when the journal is past a bound."""
        payload = json.dumps(record.to_dict(), ensure_ascii=False).encode("utf-8", "surrogatepass")
        name = f"{record.at.astimezone(timezone.utc).strftime(_STAMP)}-{os.urandom(6).hex()}{SUFFIX}"
        temp = f".{name}{TEMP_SUFFIX}{os.getpid()}-{threading.get_ident()}"  # a dot: never listed as a record
        dir_fd = self._open_dir(create=True)
        try:
            try:
                fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                             dir_fd=dir_fd)
                try:
                    view = memoryview(payload)
                    while view:  # no fsync: a record lost to a power cut costs one line of the Sessions page
                        view = view[os.write(fd, view):]
                finally:
                    os.close(fd)
                os.rename(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)  # the name is new: 48 random bits
            except OSError as exc:
                with contextlib.suppress(OSError):
                    os.unlink(temp, dir_fd=dir_fd)
                raise StorageError(f"{self.directory}: {exc.strerror or exc}") from exc
            names = self._listed(dir_fd)
        finally:
            os.close(dir_fd)
        if len(names) > KEEP + SLACK or (names and self._older_than(min(names), MAX_AGE + AGE_SLACK)):
            self.prune()

    def recent(self, limit: int = 200, session_id: Optional[str] = None) -> list[InjectionRecord]:
        """The newest `limit` records, newest first (of one session when given), skipping unreadable ones."""
        if limit <= 0 or not os.path.lexists(self.directory):
            return []
        fd = self._open_dir(create=False)
        found: list[InjectionRecord] = []
        try:
            if session_id is None:
                names = self._listed(fd)
            else:  # the kept summaries say which files are the session's: only those are read whole
                names = [n for n, s in self._summarised(fd).items() if s is not None and s.session_id == session_id]
            for name in sorted(names, reverse=True):
                record = _read(name, fd, session_id)
                if record is not None:
                    found.append(record)
                    if len(found) >= limit:
                        break
        finally:
            os.close(fd)
        return found

    def summaries(self) -> list[InjectionSummary]:
        """Every kept record summarised, newest first: only the files named since the last call are read."""
        if not os.path.lexists(self.directory):
            return []
        fd = self._open_dir(create=False)
        try:
            summarised = self._summarised(fd)
        finally:
            os.close(fd)
        return [s for _, s in sorted(summarised.items(), reverse=True) if s is not None]

    def _summarised(self, fd: int) -> dict[str, Optional[InjectionSummary]]:
        """{record file name: its summary} for today's listing, reading only the names not kept yet."""
        names = self._listed(fd)
        with _kept_lock:
            kept = _kept.get(self.directory, {})
        fresh = {name: kept[name] if name in kept else _summary(name, fd) for name in names}
        with _kept_lock:  # the listing's names only: pruned records leave the cache with their files
            _kept[self.directory] = fresh
        return fresh

    def prune(self) -> int:
        """Remove the records older than MAX_AGE, then all but the KEEP newest, and the temp files of writers
        that died; how many records went."""
        names = self._names()
        doomed = [n for n in names if self._older_than(n, MAX_AGE)]
        kept = [n for n in names if n not in set(doomed)]
        doomed += kept[:max(len(kept) - KEEP, 0)]
        for name in doomed + self._abandoned_temps():
            unlink_quietly(os.path.join(self.directory, name))
        return len(doomed)

    def _abandoned_temps(self) -> list[str]:
        try:
            names = os.listdir(self.directory)
        except OSError:
            return []
        found = []
        for name in names:
            pid = name.rsplit(TEMP_SUFFIX, 1)[1].split("-", 1)[0] if TEMP_SUFFIX in name else ""
            if name.startswith(".") and pid.isdigit() and int(pid) != os.getpid() and not pid_alive(int(pid)):
                found.append(name)
        return found

    def _older_than(self, name: str, age: timedelta) -> bool:
        try:
            at = datetime.strptime(name.split("-", 1)[0], _STAMP).replace(tzinfo=timezone.utc)
        except ValueError:
            return False  # not a name this journal writes: left alone
        return at < self.clock.now() - age

    def _names(self) -> list[str]:
        """The record files' names, oldest first ([] when there is no journal)."""
        if not os.path.lexists(self.directory):
            return []
        fd = self._open_dir(create=False)
        try:
            return sorted(self._listed(fd))
        finally:
            os.close(fd)

    @staticmethod
    def _listed(fd: int) -> list[str]:
        try:
            return [n for n in os.listdir(fd) if n.endswith(SUFFIX) and not n.startswith(".")]
        except OSError as exc:
            raise StorageError(f"journal: {exc.strerror}") from exc

    def _open_dir(self, create: bool) -> int:
        """A descriptor on the private journal directory (0700, ours, not a link); created when `create`."""
        try:
            if create:
                os.makedirs(os.path.dirname(self.directory), mode=0o700, exist_ok=True)
            return open_private_dir(self.directory, None, create=create)
        except (OSError, CacheInvalid) as exc:
            raise StorageError(f"{self.directory}: {_reason(exc)}") from exc


def _read(name: str, dir_fd: int, session_id: Optional[str] = None) -> Optional[InjectionRecord]:
    """The record in `name` (of `session_id` when given), or None when it is not a private regular file holding
    one."""
    data = _data(name, dir_fd)
    if data is None or (session_id is not None and (data.get("session_id") or "") != session_id):
        return None  # before from_dict: building records is most of a session page's reading
    try:
        return InjectionRecord.from_dict(data)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _summary(name: str, dir_fd: int) -> Optional[InjectionSummary]:
    """The summary of the record in `name`, or None when the file holds none."""
    data = _data(name, dir_fd)
    try:
        return None if data is None else InjectionSummary.from_dict(data)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _data(name: str, dir_fd: int) -> Optional[dict[str, Any]]:
    """The JSON object in `name`, or None when it is not a private regular file holding one."""
    try:
        fd, info = open_private_file(name, dir_fd)
    except (OSError, CacheInvalid):
        return None
    try:
        if info.st_size > RECORD_LIMIT:
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = json.loads(handle.read(RECORD_LIMIT).decode("utf-8", "surrogatepass"))
        return data if isinstance(data, dict) else None
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)


def _reason(exc: Exception) -> str:
    if isinstance(exc, OSError) and exc.errno in (errno.ELOOP, errno.ENOTDIR):
        return "is a symbolic link or not a directory; the injection journal never writes through one"
    return getattr(exc, "strerror", None) or str(exc)
