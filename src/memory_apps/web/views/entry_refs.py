"""What a page shows of an entry it only links to, and how it shows a time: one line each, text only."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Optional

from memory_core.entries.records import Entry
from memory_core.safety.inert import one_line


_ID = re.compile(r"[0-9a-f]{16}")


def memory_href(entry_id: str) -> Optional[str]:
    """The memory page of a whole id; None for anything else (a stored value is not trusted to be an id)."""
    return f"/memories/{entry_id}" if _ID.fullmatch(entry_id or "") else None


@dataclass(frozen=True)
class EntryRef:
    """An entry as a link: its whole id, its name on one line, its category, and where it came from (a project,
    else its source: what tells two memories of the same name apart)."""

    id: str
    name: str
    category: str
    origin: str = ""

    @property
    def href(self) -> str:
        """The memory page's path."""
        return f"/memories/{self.id}"


def entry_ref(entry: Entry) -> EntryRef:
    """The link data of one entry (its name made inert: no controls, no line breaks)."""
    return EntryRef(entry.id, one_line(entry.name), entry.category, one_line(entry.source_project or entry.source))


def ref_of(entry_id: str, name: str, category: str = "") -> EntryRef:
    """The link data of an entry known only by id and name (a journal record)."""
    return EntryRef(entry_id, one_line(name), category)


@dataclass(frozen=True)
class Moment:
    """A time as a page shows it: UTC to the minute for people, ISO 8601 for `<time datetime>`."""

    text: str
    iso: str


def moment(at: Optional[datetime]) -> Optional[Moment]:
    """The time in UTC (a naive time is taken as UTC); None stays None."""
    if at is None:
        return None
    utc = (at if at.tzinfo else at.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)
    return Moment(utc.strftime("%Y-%m-%d %H:%M UTC"), utc.isoformat())
