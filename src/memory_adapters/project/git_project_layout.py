"""GitProjectLayout: a project's bank in `docs/knowledge-bank`, its name from its directory, its identity from git."""

from __future__ import annotations

from memory_adapters.markdown.knowledge_bank import project_bank
from memory_adapters.project.identity import project_identity, project_name


class GitProjectLayout:
    """Implements ProjectLayout for a project directory on disk (a git repository or not)."""

    def knowledge_bank(self, project_root: str) -> str:
        """`<root>/docs/knowledge-bank`."""
        return project_bank(project_root)

    def name(self, project_root: str) -> str:
        """The base name of the project's root directory."""
        return project_name(project_root)

    def identity(self, project_root: str) -> str:
        """`git:<root commit>`, `remote:<host/path>` or `path:<absolute path>` (see project_identity)."""
        return project_identity(project_root)
