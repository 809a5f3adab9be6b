"""An anchor checked against today's code: `current`, `changed`, `moved` or `missing`, with the one line an agent
can act on (issue 24 groundwork, not wired yet)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from memory_core.anchors.regions import git_blob_id, parse_reference, region_hash
from memory_core.ports.code_files import CodeFiles

CURRENT, CHANGED, MOVED, MISSING = "current", "changed", "moved", "missing"


@dataclass(frozen=True)
class Anchor:
    """What a reference pointed at when the learning was written: the file's blob id, and the region's hash for
    a line or symbol reference (None for a whole file, or a region that was not found then)."""

    reference: str
    blob: str
    region: Optional[str] = None


@dataclass(frozen=True)
class AnchorState:
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


def anchor_now(reference: str, files: CodeFiles) -> Optional[Anchor]:
    """The anchor of `reference` in today's code (at write, import or `confirm`); None when the file is absent."""
    content = files.read(parse_reference(reference).path)
    if content is None:
        return None
    return Anchor(reference, git_blob_id(content), _region(reference, content))


def check_anchor(anchor: Anchor, files: CodeFiles) -> AnchorState:
    """Compare an anchor with today's code: the same blob is current; for a line or symbol, the same region is
    current too; a file that is gone is `moved` when version control knows where, else `missing`."""
    reference = parse_reference(anchor.reference)
    content = files.read(reference.path)
    if content is None:
        moved_to = files.renamed_to(reference.path)
        return AnchorState(anchor.reference, MOVED if moved_to else MISSING, moved_to)
    if git_blob_id(content) == anchor.blob:
        return AnchorState(anchor.reference, CURRENT)
    if reference.kind != "file" and anchor.region is not None and _region(anchor.reference, content) == anchor.region:
        return AnchorState(anchor.reference, CURRENT)  # the file changed elsewhere: what it cites did not
    return AnchorState(anchor.reference, CHANGED)


def _region(reference: str, content: bytes) -> Optional[str]:
    parsed = parse_reference(reference)
    if parsed.kind == "file":
        return None
    return region_hash(parsed, content.decode("utf-8", "surrogateescape"))
