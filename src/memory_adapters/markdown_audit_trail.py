"""MarkdownAuditTrail: dual-writes entries to knowledge-bank markdown (spec 002 formats), atomically."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
from datetime import timezone
from typing import Iterator, Optional

from memory_adapters.markdown_knowledge_bank import split_blocks, parse_block
from memory_adapters.safe_files import atomic_write_text, read_text_no_follow
from memory_core.hashing import content_hash
from memory_core.records import Entry
from memory_core.rendering import detail_lines, header_line

TITLES = {"anti-patterns": "Anti-Patterns", "heuristics": "Heuristics", "patterns": "Patterns"}
GLOBAL_HEADER = ("# Global {title}\n\nCross-project learnings promoted from retrospectives. Automatically managed "
                 "by iflow.\nDo not edit manually — entries are updated during /finish.\n")
LOCAL_HEADER = "# {title}\n\nLearnings recorded by iflow-memory. Updated through retrospectives.\n"
LOCK_NAME = ".markdown.lock"


def safe_description_lines(text: str) -> list[str]:
    """Description lines, indenting any that would read back as metadata or a new entry."""
    # A description line that looks like metadata or a header would end the entry when read back;
    # indenting keeps the content hash (whitespace is normalised) and the parse intact.
    return [("  " + line) if line.startswith(("- ", "### ")) else line for line in text.strip().splitlines()]


def content_lines(entry: Entry) -> list[str]:
    """Reasoning (its bullets verbatim, else one line), references and keywords, as the importer reads them."""
    lines = detail_lines(entry)
    if not lines and entry.reasoning.strip():
        lines = ["- Reasoning: " + " ".join(entry.reasoning.split())]
    if entry.references:
        lines.append("- References: " + json.dumps(entry.references, ensure_ascii=False))
    if entry.keywords:
        lines.append("- Keywords: " + json.dumps(entry.keywords, ensure_ascii=False))
    return lines


def entry_block(entry: Entry, global_format: bool) -> str:
    """The markdown block of an entry, in the global (Content-Hash, Last observed, Tags) or local form."""
    when = entry.updated_at.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    lines = [header_line(entry), *safe_description_lines(entry.description)]
    if global_format:
        lines.append(f"- Content-Hash: sha256:{entry.id}")
        lines.append(f"- Source: {entry.source_project or 'iflow-memory'}, {entry.source}")
    lines += content_lines(entry)
    lines.append(f"- Observation count: {entry.observation_count}")
    lines.append(f"- Last observed: {when}")
    if global_format:
        lines.append("- Tags: universal")
    lines.append(f"- Confidence: {entry.confidence}")
    return "\n".join(lines)


def _update_counters(block: str, entry: Entry) -> str:
    when = entry.updated_at.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    block = re.sub(r"^- Observation count:.*$", f"- Observation count: {entry.observation_count}", block,
                   flags=re.MULTILINE)
    if re.search(r"^- Last observed:", block, flags=re.MULTILINE):
        block = re.sub(r"^- Last observed:.*$", f"- Last observed: {when}", block, flags=re.MULTILINE)
    if "- Observation count:" not in block:
        block = block.rstrip() + f"\n- Observation count: {entry.observation_count}"
    return block


def upsert_block(text: str, entry: Entry, global_format: bool, increment: bool = False) -> str:
    """Return the file text with the entry appended, or its counters updated if its hash is there.

    With `increment` (markdown-only mode, no database to count), the file's own count goes up by one.
    """
    lines = text.split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith("### ")]
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        block_lines = lines[start:end]
        parsed = parse_block(block_lines, entry.category, 0, "local")
        if content_hash(parsed.description) == entry.id:
            if increment:
                entry = entry.with_changes(observation_count=parsed.observation_count + 1)
            trailing = len(block_lines) - len("\n".join(block_lines).rstrip("\n").split("\n"))
            updated = _update_counters("\n".join(block_lines).rstrip("\n"), entry).split("\n")
            return "\n".join(lines[:start] + updated + [""] * trailing + lines[end:])
    body = text.rstrip("\n")
    return (body + "\n\n" if body else "") + entry_block(entry, global_format) + "\n"


def remove_block(text: str, entry_id: str, category: str) -> str:
    """Return the text without the block whose description hashes to entry_id."""
    lines = text.split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith("### ")]
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        if content_hash(parse_block(lines[start:end], category, 0, "local").description) == entry_id:
            return "\n".join(lines[:start] + lines[end:]).rstrip("\n") + "\n"
    return text


def atomic_write(path: str, text: str) -> None:
    """Write via a temp file and rename, never through a link; new files are private (0600), existing ones keep
    their mode."""
    atomic_write_text(path, text)


@contextlib.contextmanager
def file_lock(directory: str) -> Iterator[None]:
    """An exclusive lock shared by every process writing markdown under this store."""
    os.makedirs(directory, mode=0o700, exist_ok=True)
    fd = os.open(os.path.join(directory, LOCK_NAME), os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


class MarkdownAuditTrail:
    """Implements AuditTrail: universal entries go to the global store and the project; project ones locally."""

    def __init__(self, global_store: str, project_root: Optional[str]) -> None:
        self._global_store = global_store
        self._project_root = project_root

    def _targets(self, entry: Entry) -> list[tuple[str, bool]]:
        targets = []
        if self._project_root:
            local = os.path.join(self._project_root, "docs", "knowledge-bank")
            targets.append((os.path.join(local, f"{entry.category}.md"), False))
        if not entry.source_project:
            targets.append((os.path.join(self._global_store, f"{entry.category}.md"), True))
        return targets

    def forget(self, entry: Entry) -> list[str]:
        """Remove the entry's block from the global and project files, so a rebuild does not revive it."""
        written = []
        with file_lock(self._global_store):
            paths = [os.path.join(self._global_store, f"{entry.category}.md")]
            if self._project_root:
                paths.append(os.path.join(self._project_root, "docs", "knowledge-bank", f"{entry.category}.md"))
            for path in paths:
                if not os.path.exists(path):
                    continue
                text = read_text_no_follow(path)
                updated = remove_block(text, entry.id, entry.category)
                if updated != text:
                    atomic_write(path, updated)
                    written.append(path)
        return written

    def record(self, entry: Entry, increment: bool = False) -> list[str]:
        """Append or update the entry in each target file under one lock; returns the paths written."""
        written = []
        with file_lock(self._global_store):
            for path, global_format in self._targets(entry):
                os.makedirs(os.path.dirname(path), mode=0o700 if global_format else 0o777, exist_ok=True)
                title = TITLES[entry.category]
                if os.path.exists(path):
                    text = read_text_no_follow(path)  # a link to a secret is refused, never copied
                else:
                    text = (GLOBAL_HEADER if global_format else LOCAL_HEADER).format(title=title)
                atomic_write(path, upsert_block(text, entry, global_format, increment))
                written.append(path)
        return written


__all__ = ["MarkdownAuditTrail", "entry_block", "split_blocks", "upsert_block"]
