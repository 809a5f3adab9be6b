"""Project context source port: the signals that say what this session is about."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional, Protocol, runtime_checkable

if TYPE_CHECKING:
    from memory_core.session.deadline import Deadline


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

    def collect(self, project_root: str, deadline: Optional["Deadline"] = None) -> ProjectContext:
        """Return the signals found under project_root (empty when none); slow sources stop at the deadline."""
        ...
