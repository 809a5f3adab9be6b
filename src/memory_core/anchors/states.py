"""An anchor checked against today's code: `current`, `changed`, `moved` or `missing`, with the one line an agent
can act on (ADR 26)."""

from __future__ import annotations

from typing import NamedTuple, Optional

from memory_core.anchors.regions import parse_reference

CURRENT, CHANGED, MOVED, MISSING = "current", "changed", "moved", "missing"


class AnchorState(NamedTuple):  # not a dataclass: a session start pays for each class it defines
    """How an anchor stands today, and where the file is now when it moved."""

    reference: str
    state: str
    moved_to: Optional[str] = None

    def note(self) -> str:
        """The short line shown with the learning ("" when it is current)."""
        path = parse_reference(self.reference).path
        if self.state == MOVED:
            return f"cites {path}, now {self.moved_to}"
        if self.state == MISSING:
            return f"cites {path}, which no longer exists"
        if self.state == CHANGED:
            return f"{path} changed since this was learned"
        return ""
