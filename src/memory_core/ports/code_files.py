"""Code-files port: what an anchor check reads from a project's working tree (issue 24, ADR 26)."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, Optional, Protocol, runtime_checkable

if TYPE_CHECKING:
    from memory_core.session.deadline import Deadline


class FileIdentity(NamedTuple):
    """A file's stat identity: unchanged, the file was not rewritten since it was hashed (ADR 26's cache key)."""

    size: int
    mtime_ns: int
    inode: int
    ctime_ns: int = 0


@runtime_checkable
class CodeFiles(Protocol):
    """Reads the project's files by repository-relative path, and says where a vanished one went."""

    def read(self, path: str) -> Optional[bytes]:
        """The file's content, or None when there is no regular file there (never through a link out of the
        project)."""
        ...

    def renamed_to(self, path: str, blob: str = "", commit: str = "") -> Optional[str]:
        """Where a file that is gone went (a path), or None when nobody knows: `blob` is its content then (a
        file holding exactly that is where it went), `commit` the HEAD then (version control's rename detection)."""
        ...


@runtime_checkable
class StatCodeFiles(CodeFiles, Protocol):
    """Code files that can also say cheaply whether a file changed (so a cache can skip reading it), and that
    bound their slow work (version control) by a check's deadline."""

    def identity(self, path: str) -> Optional[FileIdentity]:
        """The stat identity of the regular file at `path`, or None when there is none."""
        ...

    def new_check(self, deadline: Optional["Deadline"] = None) -> None:
        """Start one check: forget what version control said last time, and stay within `deadline`."""
        ...
