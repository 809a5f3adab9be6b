"""MarkdownAuditTrail: dual-writes entries to knowledge-bank markdown (spec 002 formats), atomically."""

from __future__ import annotations

import json
import os
import re
from typing import ContextManager, Optional, Sequence

from memory_adapters.markdown.lock import markdown_lock
from memory_adapters.markdown.history_file import count_events, write_history
from memory_adapters.markdown.tombstones import add_tombstone, drop_tombstone
from memory_adapters.markdown.codec import encode_value
from memory_adapters.markdown.entry_block import anchors_value, entry_block, last_observed
from memory_adapters.markdown.knowledge_bank import (
    block_spans, category_file, ends_in_comment, parse_block, project_bank, split_blocks,
)
from memory_adapters.fs.safe_files import atomic_write_text, read_text_no_follow
from memory_core.entries.knowledge import KnowledgeEntry, Origin
from memory_core.entries.records import CATEGORY_TITLES, Entry, HistoryEvent, RetiredEntry

GLOBAL_HEADER = ("# Global {title}\n\nCross-project learnings promoted from retrospectives. Automatically managed "
                 "by iflow.\nDo not edit manually — entries are updated during /finish.\n")
LOCAL_HEADER = "# {title}\n\nLearnings recorded by iflow-memory. Updated through retrospectives.\n"
MAX_OBSERVATIONS = 1_000_000


def _set(lines: list[str], key: str, value: Optional[str], before: Optional[str] = None) -> list[str]:
    """The block with its first `- {key}:` bullet holding `value` (dropped for None); a missing one goes before
    the first `- {before}:` bullet, else at the end."""
    def first(name: Optional[str]) -> Optional[int]:
        if name is None:
            return None
        pattern = re.compile(rf"- {name}:", re.IGNORECASE)
        return next((i for i, line in enumerate(lines) if i and pattern.match(line)), None)

    found, new = first(key), ([] if value is None else [f"- {key}: {value}"])
    if found is not None:
        return lines[:found] + new + lines[found + 1:]
    at = first(before)
    return lines + new if at is None else lines[:at] + new + lines[at:]


def _patched(block: list[str], entry: Entry, parsed: KnowledgeEntry, counters_only: bool,
             global_format: bool = False) -> list[str]:
    """A block's own lines with its counters (and, unless `counters_only`, its one-line fields) set to the entry's."""
    lines = _set(block, "Observation count", str(entry.observation_count))
    lines = _set(lines, "Last observed", last_observed(entry))
    if counters_only:
        return lines
    if global_format and parsed.anchors != entry.anchors:
        lines = _set(lines, "Anchors", anchors_value(entry) if entry.anchors else None, "Observation count")
    if parsed.confidence != entry.confidence:
        lines = _set(lines, "Confidence", entry.confidence)
    for key, values in (("Keywords", entry.keywords), ("References", entry.references)):
        if getattr(parsed, key.lower()) != values:
            lines = _set(lines, key, json.dumps(values, ensure_ascii=False) if values else None, "Observation count")
    if parsed.project(None) != entry.source_project:  # a block without a project names it now
        project = entry.source_project
        lines = _set(lines, "Source project", None if project is None else encode_value(project), "Observation count")
        if project is None and not parsed.universal:
            lines = _set(lines, "Tags", "universal")
    return lines


def _reads_back(lines: list[str], entry: Entry, origin: Origin) -> bool:
    """Whether the lines are one block, opening no comment, that imports as exactly this entry."""
    text = "\n".join(lines)
    blocks = split_blocks(text)
    return len(blocks) == 1 and not ends_in_comment(text) and \
        parse_block(blocks[0], entry.category, 0, origin).rebuilds(entry, None)


def upsert_block(text: str, entry: Entry, global_format: bool, increment: bool = False) -> str:
    """Return the file text with the entry appended, or its block brought up to date if its hash is there.

    An existing block keeps its own lines and gets the entry's counters and one-line fields; it is written anew
    only when that would not import as the entry. Nothing outside the block changes. With `increment`
    (markdown-only mode, no database to count), only the file's own count goes up by one."""
    origin: Origin = "global" if global_format else "local"
    lines = text.split("\n")
    for start, end, block in block_spans(lines):
        parsed = parse_block(block, entry.category, 0, origin)
        if parsed.entry_id != entry.id:
            continue
        if increment:
            entry = entry.with_changes(observation_count=min(parsed.observation_count + 1, MAX_OBSERVATIONS))
        updated = _patched(lines[start:end], entry, parsed, counters_only=increment, global_format=global_format)
        if not increment and not _reads_back(updated, entry, origin):
            updated = entry_block(entry, global_format).split("\n")
        return "\n".join(lines[:start] + updated + lines[end:])
    body = text.rstrip("\n")
    if ends_in_comment(body):
        body += "\n-->"  # an unclosed comment above would hide the new entry
    return (body + "\n\n" if body else "") + entry_block(entry, global_format) + "\n"


def remove_block(text: str, entry_id: str, category: str) -> str:
    """Return the text without the blocks whose description hashes to entry_id (and the blank lines after them)."""
    lines = text.split("\n")
    found = [(start, end) for start, end, block in block_spans(lines)
             if parse_block(block, category, 0, "local").entry_id == entry_id]
    if not found:
        return text
    for start, end in reversed(found):
        while end < len(lines) and not lines[end].strip():
            end += 1
        del lines[start:end]
    return "\n".join(lines).rstrip("\n") + "\n"


def file_lock(directory: str) -> ContextManager[None]:
    """An exclusive lock shared by every process writing markdown under this store (re-entrant here)."""
    return markdown_lock(directory)


class MarkdownAuditTrail:
    """Implements AuditTrail: universal entries go to the global store and the project; project ones locally."""

    def __init__(self, global_store: str, project_root: Optional[str]) -> None:
        self._global_store = global_store
        self._project_root = project_root

    def _targets(self, entry: Entry) -> list[tuple[str, bool]]:
        targets = []
        if self._project_root:
            targets.append((category_file(project_bank(self._project_root), entry.category), False))
        if entry.scope is None:  # universal: the global store's markdown, so a rebuild keeps it universal
            targets.append((category_file(self._global_store, entry.category), True))
        return targets

    def exclusive(self) -> ContextManager[None]:
        """Hold the markdown lock across a database read and the writes it decides."""
        return file_lock(self._global_store)

    def forget(self, entry_id: str, category: str) -> list[str]:
        """Remove the entry's block from the global and project files and list it as deleted, so a rebuild
        does not revive it (not even from another project's bank). A failing file raises after the others."""
        return self._remove_blocks(entry_id, category, from_bank=True, tombstone=True)

    def withdraw(self, entry_id: str, category: str, from_bank: bool = False) -> list[str]:
        """Remove a retired or edited-away entry's block from the global store's markdown, with no tombstone (a
        restore brings it back); with `from_bank` from the project's bank too: a block this trail wrote there
        would give a teammate importing the bank the learning back live. A block the user wrote in the bank (an
        imported entry: `from_bank` False) stays as written; an import skips a retired id anyway."""
        return self._remove_blocks(entry_id, category, from_bank, tombstone=False)

    def _remove_blocks(self, entry_id: str, category: str, from_bank: bool, tombstone: bool) -> list[str]:
        """Take the entry's block out of the global file (and the project's with `from_bank`) under the lock;
        every file is tried, a failing one raises after the others."""
        written: list[str] = []
        failures: list[OSError] = []
        with file_lock(self._global_store):
            if tombstone:
                add_tombstone(self._global_store, entry_id)
            paths = [category_file(self._global_store, category)]
            if from_bank and self._project_root:
                paths.append(category_file(project_bank(self._project_root), category))
            for path in paths:
                if os.path.lexists(path):
                    _rewrite(path, lambda text: remove_block(text, entry_id, category), written, failures)
        if failures:
            raise failures[0]
        return written

    def history_count(self) -> int:
        """How many events the global store's history file holds."""
        return count_events(self._global_store)

    def write_history(self, events: Sequence[HistoryEvent], retired: Sequence[RetiredEntry],
                      restored: Sequence[Entry] = ()) -> list[str]:
        """Write `<global store>/entry-history.md` whole, under the markdown lock."""
        with file_lock(self._global_store):
            os.makedirs(self._global_store, mode=0o700, exist_ok=True)
            return [write_history(self._global_store, events, retired, restored)]

    def record(self, entry: Entry, increment: bool = False) -> list[str]:
        """Append or update the entry in each target file under one lock; returns the paths written.
        Every target is tried; a refused or failing one raises after the others are written."""
        written: list[str] = []
        failures: list[OSError] = []
        with file_lock(self._global_store):
            drop_tombstone(self._global_store, entry.id)
            for path, global_format in self._targets(entry):
                title = CATEGORY_TITLES[entry.category]
                header = (GLOBAL_HEADER if global_format else LOCAL_HEADER).format(title=title)
                try:
                    os.makedirs(os.path.dirname(path), mode=0o700 if global_format else 0o777, exist_ok=True)
                except OSError as exc:
                    failures.append(exc)
                    continue
                _rewrite(path, lambda text, g=global_format: upsert_block(text, entry, g, increment), written,
                         failures, header)
        if failures:
            raise failures[0]
        return written


def _rewrite(path: str, change, written: list[str], failures: list[OSError], header: Optional[str] = None) -> None:
    """Apply `change` to one file's text (`header` when it does not exist yet) and write it back if it changed."""
    try:
        text = header if header is not None and not os.path.lexists(path) else read_text_no_follow(path)
        updated = change(text)
        if updated != text or header is not None:
            atomic_write_text(path, updated)  # never through a link; new files 0600, others keep their mode
            written.append(path)
    except OSError as exc:  # a link to a secret is refused here, never read or copied
        failures.append(exc)


__all__ = ["MarkdownAuditTrail", "entry_block", "split_blocks", "upsert_block"]
