"""Code-files port: what an anchor check reads from a project's working tree (issue 24 groundwork)."""

from __future__ import annotations

from typing import Optional, Protocol, runtime_checkable


@runtime_checkable
class CodeFiles(Protocol):
    """Reads the project's files by repository-relative path, and says where a vanished one went."""

    def read(self, path: str) -> Optional[bytes]:
        """The file's content, or None when there is no regular file there (never through a link out of the
        project)."""
        ...

    def renamed_to(self, path: str) -> Optional[str]:
        """Where version control says a file that is gone was moved (a path), or None when it does not know."""
        ...
