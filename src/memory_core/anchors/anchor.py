"""An anchor: what one reference of a learning pointed at when it was written (ADR 26); plain data, no imports of
the ports, so the entry records can carry it."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping, Optional


@dataclass(frozen=True)
class Anchor:
    """What a reference pointed at when the learning was written: the file's blob id, and the region's hash for
    a line or symbol reference (None for a whole file, or a region that was not found then)."""

    reference: str
    blob: str
    region: Optional[str] = None
    project: str = ""
    """The identity of the project whose tree the anchor was taken in: another project's sessions never check it
    (a universal learning citing `src/app.py` of project A says nothing about project B's `src/app.py`)."""
    commit: str = ""
    """HEAD when the anchor was taken ("" outside git): lets rename detection see a file moved and edited."""

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON (stores, markdown, export); empty optional fields left out."""
        return {k: v for k, v in asdict(self).items() if v not in (None, "")}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Anchor":
        """The anchor `to_dict` wrote (unknown keys ignored; raises ValueError without a reference and a blob)."""
        reference, blob = data.get("reference"), data.get("blob")
        if not isinstance(reference, str) or not isinstance(blob, str) or not reference or not blob:
            raise ValueError("an anchor needs a reference and a blob")
        region = data.get("region")
        return cls(reference, blob, region if isinstance(region, str) else None,
                   str(data.get("project") or ""), str(data.get("commit") or ""))
