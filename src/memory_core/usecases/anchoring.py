"""Anchoring a reference in today's code and checking an anchor against it (ADR 26): the steps every writer,
import, `confirm` and check before use share."""

from __future__ import annotations

from typing import Optional

from memory_core.anchors.anchor import Anchor
from memory_core.anchors.regions import git_blob_id, parse_reference, region_hash
from memory_core.anchors.states import CHANGED, CURRENT, MISSING, MOVED, AnchorState
from memory_core.ports.code_files import CodeFiles


def anchor_now(reference: str, files: CodeFiles, project: str = "", commit: str = "") -> Optional[Anchor]:
    """The anchor of `reference` in today's code (at write, import or `confirm`); None when the file is absent."""
    content = files.read(parse_reference(reference).path)
    if content is None:
        return None
    return Anchor(reference, git_blob_id(content), region_of(reference, content), project, commit)


def check_anchor(anchor: Anchor, files: CodeFiles) -> AnchorState:
    """Compare an anchor with today's code: the same blob is current; for a line or symbol, the same region is
    current too; a file that is gone is `moved` when version control knows where, else `missing`."""
    reference = parse_reference(anchor.reference)
    content = files.read(reference.path)
    if content is None:
        moved_to = files.renamed_to(reference.path, anchor.blob, anchor.commit)
        return AnchorState(anchor.reference, MOVED if moved_to else MISSING, moved_to)
    if git_blob_id(content) == anchor.blob:
        return AnchorState(anchor.reference, CURRENT)
    if reference.kind != "file" and anchor.region is not None and region_of(anchor.reference, content) == anchor.region:
        return AnchorState(anchor.reference, CURRENT)  # the file changed elsewhere: what it cites did not
    return AnchorState(anchor.reference, CHANGED)


def region_of(reference: str, content: bytes) -> Optional[str]:
    """The hash of the region a line or symbol reference cites in `content` (None for a whole file, or no region)."""
    parsed = parse_reference(reference)
    if parsed.kind == "file":
        return None
    return region_hash(parsed, content.decode("utf-8", "surrogateescape"))
