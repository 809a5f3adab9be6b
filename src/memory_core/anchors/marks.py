"""What a check before use adds to what is shown (ADR 26): a line per marked entry, which entries were ranked
lower for citing only missing files, and what the deadline left unchecked; the words of the diagnostic line."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Collection, Mapping


@dataclass(frozen=True)
class AnchorMarks:
    """The marks of one selection: `notes` (entry id → its one line), `lowered` (citing only missing files),
    `unchecked` (entries the deadline left unchecked), `skipped` (no time to check at all), `checked` (entries
    whose citations of the project were checked, marked or not)."""

    notes: Mapping[str, str] = field(default_factory=dict)
    lowered: frozenset = frozenset()
    unchecked: int = 0
    skipped: bool = False
    checked: frozenset = frozenset()

    def note(self, entry_id: str) -> str:
        """The line shown with this entry ("" when it is unmarked)."""
        return self.notes.get(entry_id, "")

    def diagnostic(self, shown_ids: Collection[str]) -> str:
        """The diagnostic line's words for the check ("" when there is nothing to say): what was not checked,
        and how many entries ranked lower for citing only missing files are not shown."""
        words = []
        if self.skipped:
            words.append("citations not checked (no time left)")
        elif self.unchecked:
            words.append(f"{self.unchecked} not checked against the code (no time left)")
        pushed_out = len(self.lowered - set(shown_ids))
        if pushed_out:
            words.append(f"{pushed_out} citing only missing files ranked lower")
        return "; ".join(words)
