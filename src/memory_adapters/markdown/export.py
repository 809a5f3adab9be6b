"""Writes entries as knowledge-bank markdown that `import` reads back to the same entries."""

from __future__ import annotations

import os
from typing import Sequence

from memory_adapters.markdown.entry_block import anchors_value, entry_block
from memory_adapters.markdown.history_file import history_path, write_history
from memory_adapters.markdown.knowledge_bank import category_file
from memory_adapters.fs.safe_files import PRIVATE, atomic_write_text, existing_regular
from memory_core.entries.records import CATEGORIES, CATEGORY_TITLES, Entry, HistoryEvent, RetiredEntry


def entry_markdown(entry: Entry) -> str:
    """One `### ` block with every field the importer understands (the audit trail's project form), plus how
    the entry was stored and, for a scoped one, its project, so importing the export gives both back."""
    lines = [entry_block(entry, global_format=False), f"- Entry source: {entry.source}"]
    if entry.anchors:
        lines.append("- Anchors: " + anchors_value(entry))
    if entry.scope is not None:
        lines.append(f"- Scope: {entry.scope}")
    return "\n".join(lines)


def export_markdown(entries: Sequence[Entry], directory: str) -> list[tuple[str, int]]:
    """Write anti-patterns.md, heuristics.md and patterns.md into `directory` (created 0700, files 0600, never
    through a link); returns (path, count)."""
    os.makedirs(directory, mode=0o700, exist_ok=True)
    paths = {category: category_file(directory, category) for category in CATEGORIES}
    for path in [*paths.values(), history_path(directory)]:
        existing_regular(path)  # refuse before writing any of them (the history file comes next)
    written = []
    for category in CATEGORIES:
        chosen = [e for e in entries if e.category == category]
        path = paths[category]
        header = f"# {CATEGORY_TITLES[category]}\n\nExported by iflow-memory.\n\n"
        body = "\n\n".join(entry_markdown(e) for e in chosen)
        atomic_write_text(path, header + body + ("\n" if body else ""), mode=PRIVATE)
        written.append((path, len(chosen)))
    return written


def export_history(directory: str, events: Sequence[HistoryEvent], retired: Sequence[RetiredEntry]) -> tuple[str, int]:
    """Write `entry-history.md` into `directory` (as the global store keeps it: importing the export as a store
    brings back the retired entries, the edits' aliases and the history); returns (path, events written)."""
    os.makedirs(directory, mode=0o700, exist_ok=True)
    existing_regular(history_path(directory))  # a link is refused, never written through
    return write_history(directory, events, retired), len(events)
