"""Project context source port: the signals that say what this session is about."""

from __future__ import annotations

from typing import Optional, Protocol, runtime_checkable

from dataclasses import dataclass, field


@dataclass
class ProjectContext:
    """Signals gathered from a project (spec 001 D2 step 1); every field may be missing."""

    feature_slug: Optional[str] = None
    feature_description: Optional[str] = None
    phase: Optional[str] = None
    changed_files: list[str] = field(default_factory=list)


@runtime_checkable
class ProjectContextSource(Protocol):
    """Collects context signals for a project; never raises."""

    def collect(self, project_root: str) -> ProjectContext:
        """Return the signals found under project_root (empty when none)."""
        ...
