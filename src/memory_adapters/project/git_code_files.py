"""GitCodeFiles: a project's working tree as an anchor check reads it (ADR 26): regular files only, never through
a link or out of the root, size-capped; git says where a vanished file went."""

from __future__ import annotations

import errno
import os
import re
import stat
from typing import TYPE_CHECKING, Optional

from memory_adapters.project.git_context_source import in_git_work_tree
from memory_core.ports.code_files import FileIdentity

if TYPE_CHECKING:
    from memory_core.session.deadline import Deadline

MAX_FILE_BYTES = 2 << 20
"""A cited file larger than this is not read: it gets no anchor at write, and is not judged at a check (unknown,
so unmarked) rather than costing a session start a big read."""
GIT_TIMEOUT_S = 1.0
MIN_GIT_S = 0.05  # less time than this left: do not start git at all
_COMMIT = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")
_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)  # a FIFO opens without waiting


def work_tree_top(root: str) -> str:
    """The directory holding `.git` at or above `root` (references are relative to it), else `root` itself."""
    directory = os.path.abspath(root)
    while True:
        if os.path.exists(os.path.join(directory, ".git")):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return os.path.abspath(root)
        directory = parent


def _parts(path: str) -> Optional[list[str]]:
    """The components of a repository-relative path, or None when it is absolute or climbs out (`..`)."""
    if not path or path.startswith(("/", "\\")) or "\0" in path:
        return None
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    return None if not parts or ".." in parts else parts


def _git(top: str, args: list[str], timeout_s: float) -> Optional[bytes]:
    """stdout of `git -C top *args`, or None when git is missing, fails or is slower than `timeout_s`."""
    if timeout_s < MIN_GIT_S:
        return None
    import subprocess  # only when a cited file is gone: a check of an unchanged tree never starts git

    try:
        result = subprocess.run(["git", "-C", top, *args], capture_output=True, timeout=timeout_s,
                                stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout if result.returncode == 0 else None


def head_commit(root: str, timeout_s: float = GIT_TIMEOUT_S) -> str:
    """The commit HEAD names in the repository holding `root`, or "" (no git, no commit yet, too slow)."""
    if not in_git_work_tree(root):
        return ""
    output = _git(root, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], timeout_s)
    commit = (output or b"").decode("ascii", "replace").strip()
    return commit if _COMMIT.match(commit) else ""


class GitCodeFiles:
    """Implements CodeFiles and StatCodeFiles for one project root (a git work tree or a plain directory)."""

    def __init__(self, root: str, deadline: Optional["Deadline"] = None) -> None:
        self.top = work_tree_top(root)
        self._git = in_git_work_tree(self.top)
        self._deadline = deadline
        self._index: Optional[dict[str, list[str]]] = None
        self._renames: dict[str, dict[str, str]] = {}
        self._safe_dirs: dict[str, bool] = {}

    def new_check(self, deadline: Optional["Deadline"] = None) -> None:
        """Forget what git said (the tree may have changed since) and bound git by `deadline`."""
        self._deadline = deadline
        self._index = None
        self._renames = {}
        self._safe_dirs = {}

    def read(self, path: str) -> Optional[bytes]:
        """The content of the regular file at `path` (at most MAX_FILE_BYTES), or None: no such file, a link on
        the way, out of the root, too big."""
        parts = _parts(path)
        if parts is None:
            return None
        try:
            return self._read(parts)
        except OSError:
            return None

    def identity(self, path: str) -> Optional[FileIdentity]:
        """The stat identity of the regular file at `path` (no link on the way), or None."""
        parts = _parts(path)
        if parts is None or not self._directory_safe(parts[:-1]):
            return None
        try:
            info = os.lstat(os.path.join(self.top, *parts))
        except OSError:
            return None
        if not stat.S_ISREG(info.st_mode):
            return None
        return FileIdentity(info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns)

    def renamed_to(self, path: str, blob: str = "", commit: str = "") -> Optional[str]:
        """Where git says the file went: a tracked file holding exactly `blob` (one `git ls-files -s` per check),
        else a rename git detects since `commit`; None without git, without an answer in time, or when nothing
        there is a regular file now."""
        if not self._git:
            return None
        if blob:
            for candidate in sorted(self._blobs().get(blob, ())):
                if candidate != path and self.identity(candidate) is not None:
                    return candidate
        if commit and _COMMIT.match(commit):
            moved = self._renamed_since(commit).get(path)
            if moved and self.identity(moved) is not None:
                return moved
        return None

    # -- the parts -----------------------------------------------------------------------------------------------
    def _read(self, parts: list[str]) -> Optional[bytes]:
        fd = os.open(self.top, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
        try:
            for part in parts[:-1]:  # each directory opened without following a link
                inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
                                dir_fd=fd)
                os.close(fd)
                fd = inner
            file_fd = os.open(parts[-1], _FLAGS, dir_fd=fd)
        finally:
            os.close(fd)
        try:
            info = os.fstat(file_fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
                return None
            chunks, size = [], 0
            while chunk := os.read(file_fd, 1 << 16):
                size += len(chunk)
                if size > MAX_FILE_BYTES:
                    raise OSError(errno.EFBIG, "grew past the cap while read")
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(file_fd)

    def _directory_safe(self, parts: list[str]) -> bool:
        """Whether each directory on the way is a real directory, not a link (remembered for one check)."""
        current = ""
        for part in parts:
            current = f"{current}/{part}" if current else part
            if current not in self._safe_dirs:
                try:
                    self._safe_dirs[current] = stat.S_ISDIR(os.lstat(os.path.join(self.top, current)).st_mode)
                except OSError:
                    self._safe_dirs[current] = False
            if not self._safe_dirs[current]:
                return False
        return True

    def _timeout(self) -> float:
        return self._deadline.cap(GIT_TIMEOUT_S) if self._deadline is not None else GIT_TIMEOUT_S

    def _blobs(self) -> dict[str, list[str]]:
        """{blob id: tracked paths holding it} from the index, once per check."""
        if self._index is None:
            output = _git(self.top, ["ls-files", "--stage", "-z", "--full-name"], self._timeout())
            self._index = {}
            for record in (output or b"").split(b"\0"):
                meta, _, name = record.partition(b"\t")
                fields = meta.split()
                if len(fields) == 3 and name:
                    try:
                        self._index.setdefault(fields[1].decode("ascii"), []).append(name.decode("utf-8"))
                    except UnicodeDecodeError:
                        continue  # such a path is no use as a reference
        return self._index

    def _renamed_since(self, commit: str) -> dict[str, str]:
        """{old path: new path} for the renames git detects between `commit` and the working tree."""
        if commit not in self._renames:
            output = _git(self.top, ["-c", "diff.relative=false", "diff", "-M", "--name-status", "-z", "--no-color",
                                     "--no-ext-diff", commit, "--"], self._timeout())
            fields = (output or b"").split(b"\0")
            renames: dict[str, str] = {}
            index = 0
            while index < len(fields):
                status = fields[index]
                if status[:1] in (b"R", b"C") and index + 2 < len(fields):
                    if status[:1] == b"R":
                        try:
                            renames[fields[index + 1].decode("utf-8")] = fields[index + 2].decode("utf-8")
                        except UnicodeDecodeError:
                            pass
                    index += 3
                else:
                    index += 2
            self._renames[commit] = renames
        return self._renames[commit]
