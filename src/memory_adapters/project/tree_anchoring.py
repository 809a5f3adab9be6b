"""GitTreeAnchoring: anchors taken in a project's working tree today (ADR 26), for the writers and the import."""

from __future__ import annotations

from typing import Sequence

from memory_adapters.project.git_code_files import GitCodeFiles, head_commit
from memory_adapters.project.identity import project_identity
from memory_core.anchors.anchor import Anchor
from memory_core.usecases.check_anchors import anchors_for


class GitTreeAnchoring:
    """`(project root, references) → anchors`: each file's blob and cited region, the project's identity and HEAD;
    the tree, identity and HEAD of a root are looked up once per instance (an import anchors many entries)."""

    def __init__(self) -> None:
        self._trees: dict[str, tuple[GitCodeFiles, str, str]] = {}

    def __call__(self, project_root: str, references: Sequence[str]) -> tuple[Anchor, ...]:
        """The anchors of the references whose files exist in that tree now."""
        if not project_root or not references:
            return ()
        if project_root not in self._trees:
            self._trees[project_root] = (GitCodeFiles(project_root), project_identity(project_root),
                                         head_commit(project_root))
        files, identity, commit = self._trees[project_root]
        return anchors_for(references, files, identity, commit)
