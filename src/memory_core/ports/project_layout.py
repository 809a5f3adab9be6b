"""Project layout port: what the core needs to know about a project directory, which only an adapter reads."""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class ProjectLayout(Protocol):
    """Where a project keeps its knowledge bank, what it is called and which project it is."""

    def knowledge_bank(self, project_root: str) -> str:
        """The directory holding the project's knowledge-bank markdown."""
        ...

    def name(self, project_root: str) -> str:
        """The project's name, stamped on the entries of its bank (`source_project`)."""
        ...

    def identity(self, project_root: str) -> str:
        """The project's stable identity: the scope of its bank's entries when somebody else committed them."""
        ...
