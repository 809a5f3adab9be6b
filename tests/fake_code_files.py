"""A working tree in a dict for the anchor check (issue 24): the CodeFiles and StatCodeFiles ports, counting reads."""

from __future__ import annotations

from typing import Optional

from memory_core.ports.code_files import FileIdentity


class FakeCodeFiles:
    """Files by path, the renames version control would report, and how often each file was read."""

    def __init__(self, files: dict[str, bytes], renames: Optional[dict[str, str]] = None) -> None:
        self.files, self.renames = dict(files), dict(renames or {})
        self.reads: list[str] = []
        self.checks = 0
        self._versions: dict[str, int] = {path: 1 for path in self.files}

    def write(self, path: str, content: bytes) -> None:
        """Change a file (a new identity, as a real write would give it)."""
        self.files[path] = content
        self._versions[path] = self._versions.get(path, 0) + 1

    def read(self, path: str) -> Optional[bytes]:
        self.reads.append(path)
        return self.files.get(path)

    def renamed_to(self, path: str, blob: str = "", commit: str = "") -> Optional[str]:
        return self.renames.get(path)

    def identity(self, path: str) -> Optional[FileIdentity]:
        if path not in self.files:
            return None
        return FileIdentity(len(self.files[path]), self._versions[path], hash(path) & 0xFFFF, 0)

    def new_check(self, deadline=None) -> None:
        self.checks += 1


class MemoryAnchorCache:
    """The AnchorCache port in a dict."""

    def __init__(self) -> None:
        self.kept: dict[str, dict] = {}
        self.saves = 0

    def load(self, project: str) -> dict:
        return dict(self.kept.get(project, {}))

    def save(self, project: str, files) -> None:
        self.saves += 1
        self.kept[project] = dict(files)
