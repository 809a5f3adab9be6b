"""MarkdownKnowledgeBankReader: parses knowledge-bank category files (spec 002 parser rules)."""

from __future__ import annotations

import json
import os
import re
import sys
from datetime import datetime, timezone
from typing import Optional

from memory_adapters.regular_files import BANK_FILE_LIMIT, read_regular_text
from memory_core.knowledge import KnowledgeEntry, Origin
from memory_core.records import CATEGORIES

_TYPE_PREFIX = {"anti-patterns": "Anti-Pattern: ", "patterns": "Pattern: ", "heuristics": "Heuristic: "}
_OBSERVATIONS = re.compile(r"^- Observation count:\s*(\d+)", re.MULTILINE)
_CONFIDENCE = re.compile(r"^- Confidence:\s*(high|medium|low)\b", re.MULTILINE | re.IGNORECASE)
_LAST_OBSERVED = re.compile(r"^- Last observed:\s*(\d{4}-\d{2}-\d{2}\S*)", re.MULTILINE)
_KEYWORDS = re.compile(r"^- Keywords:\s*(.+)$", re.MULTILINE)
_TRACKED = re.compile(r"^- (Observation count|Confidence|Last observed|Content-Hash|Keywords|Tags|Reasoning|"
                      r"References|Source project):", re.IGNORECASE)
_REASONING = re.compile(r"^- Reasoning:\s*(.+)$", re.MULTILINE)
_REFERENCES = re.compile(r"^- References:\s*(.+)$", re.MULTILINE)
_SOURCE_PROJECT = re.compile(r"^- Source project:\s*(.+)$", re.MULTILINE)


def _parse_date(text: str) -> Optional[datetime]:
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def _keywords(block: str) -> list[str]:
    match = _KEYWORDS.search(block)
    if not match:
        return []
    return [w for w in re.findall(r"[A-Za-z0-9][A-Za-z0-9 _-]*", match.group(1)) if w.strip()]


def without_comment_blocks(lines: list[str]) -> list[str]:
    """Drop HTML comments that start a line (format examples); inline `<!-- -->` text is content."""
    kept: list[str] = []
    in_comment = False
    for line in lines:
        if not in_comment and line.lstrip().startswith("<!--"):
            in_comment = "-->" not in line
            continue
        if in_comment:
            in_comment = "-->" not in line
            continue
        kept.append(line)
    return kept


def _count(digits: str) -> int:
    """An observation count, clamped to 1..1,000,000 (absurd values are typos, not evidence)."""
    if len(digits) > 7:
        return 1_000_000
    return min(max(int(digits), 1), 1_000_000)


def _references(text: str) -> list[str]:
    """A JSON list (as export writes it) or a comma-separated list (as people write it)."""
    text = text.strip()
    if text.startswith("["):
        try:
            values = json.loads(text)
            if isinstance(values, list):
                return [str(v).strip() for v in values if str(v).strip()]
        except ValueError:
            pass
    return [r.strip() for r in text.split(",") if r.strip()]


def split_blocks(text: str) -> list[list[str]]:
    """Split a file into `### ` blocks (header line plus following lines); HTML comments are ignored."""
    blocks: list[list[str]] = []
    for line in without_comment_blocks(text.split("\n")):
        if line.startswith("### "):
            blocks.append([line])
        elif blocks:
            blocks[-1].append(line)
    return blocks


def parse_block(lines: list[str], category: str, position: int, origin: Origin) -> KnowledgeEntry:
    """Turn one `### ` block into a KnowledgeEntry."""
    header = lines[0][4:].strip()
    body = lines[1:]
    description: list[str] = []
    for line in body:
        if line.startswith("- "):
            break
        description.append(line)
    raw = "\n".join(lines).strip()
    observations = _OBSERVATIONS.search(raw)
    confidence = _CONFIDENCE.search(raw)
    last = _LAST_OBSERVED.search(raw)
    details = [line for line in body[len(description):] if line.startswith("- ") and not _TRACKED.match(line)]
    reasoning = _REASONING.search(raw)
    references = _REFERENCES.search(raw)
    source_project = _SOURCE_PROJECT.search(raw)
    return KnowledgeEntry(
        name=header[len(_TYPE_PREFIX[category]):] if header.startswith(_TYPE_PREFIX[category]) else header,
        category=category,
        # Writers indent description lines that would otherwise read as metadata; undo that here.
        description="\n".join(line[2:] if line.startswith(("  - ", "  ### ")) else line
                              for line in description).strip(),
        raw_text=raw,
        observation_count=_count(observations.group(1)) if observations else 1,
        confidence=confidence.group(1).lower() if confidence else "medium",
        position=position,
        last_observed=_parse_date(last.group(1)) if last else None,
        origin=origin,
        keywords=_keywords(raw),
        details=details,
        reasoning=reasoning.group(1).strip() if reasoning else None,
        references=_references(references.group(1)) if references else [],
        source_project=source_project.group(1).strip() if source_project else None,
    )


def parse_file(path: str, category: str, origin: Origin) -> list[KnowledgeEntry]:
    """Parse one category file; an unreadable file yields nothing and a warning."""
    try:
        text = read_regular_text(path, BANK_FILE_LIMIT)
    except OSError as exc:
        print(f"iflow-memory: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return []
    return [parse_block(block, category, i, origin) for i, block in enumerate(split_blocks(text))]


class MarkdownKnowledgeBankReader:
    """Implements KnowledgeBankReader for `anti-patterns.md`, `heuristics.md`, `patterns.md`."""

    def __init__(self, warn_unknown: bool = True) -> None:
        self._warn_unknown = warn_unknown

    def read(self, directory: str, origin: Origin) -> list[KnowledgeEntry]:
        """Parse the three category files of `directory`; other .md files are skipped with a warning."""
        if not os.path.isdir(directory):
            return []
        entries: list[KnowledgeEntry] = []
        for category in CATEGORIES:
            path = os.path.join(directory, f"{category}.md")
            if os.path.isfile(path):
                entries.extend(parse_file(path, category, origin))
            elif os.path.lexists(path):  # a FIFO, a device, a directory: never opened
                print(f"iflow-memory: cannot read {path}: not a regular file", file=sys.stderr)
        if self._warn_unknown:
            known = {f"{c}.md" for c in CATEGORIES}
            for name in sorted(os.listdir(directory)):
                if name.endswith(".md") and name not in known:
                    print(f"iflow-memory: skipping {os.path.join(directory, name)} (not a category file)",
                          file=sys.stderr)
        return entries
