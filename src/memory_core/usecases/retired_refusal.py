"""A write that names a retired learning is refused, never a silent revival (ADR 26): the error says which
learning, when and why it was retired, and how to bring it back."""

from __future__ import annotations

from memory_core.entries.records import RetiredEntry
from memory_core.errors import InvalidEntry
from memory_core.safety.inert import one_line


class RetiredLearning(InvalidEntry):
    """The learning a write repeats or names is retired: nothing was stored. `described` says which, when and
    why ("<id> — <name> was retired on <date> (<reason>; superseded by <id>)"); a shell adds how it restores."""

    def __init__(self, field: str, retired: RetiredEntry) -> None:
        self.retired = retired
        self.entry_id = retired.entry.id
        self.described = retired_words(retired)
        super().__init__(field, f"{self.described}; `iflow-memory restore {self.entry_id}` brings it back")


def retired_words(retired: RetiredEntry) -> str:
    """"<id> — <name> was retired on <date> (<reason>; superseded by <id>)", the parentheses only with either."""
    why = [one_line(retired.reason)] if retired.reason.strip() else []
    if retired.superseded_by:
        why.append(f"superseded by {retired.superseded_by}")
    told = f" ({'; '.join(why)})" if why else ""
    return (f"{retired.entry.id} — {one_line(retired.entry.name)} was retired on "
            f"{retired.retired_at.date().isoformat()}{told}")
