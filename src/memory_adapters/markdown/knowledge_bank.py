"""MarkdownKnowledgeBankReader: parses knowledge-bank category files (spec 002 parser rules)."""

from __future__ import annotations

import json
import os
import re
import sys
from datetime import datetime, timezone
from typing import Optional

from memory_adapters.markdown.codec import decode_value, json_string, json_strings, unescape_description_line
from memory_adapters.markdown.fences import fence_mask
from memory_adapters.fs.regular_files import BANK_FILE_LIMIT, read_regular_text
from memory_core.anchors.anchor import Anchor
from memory_core.safety.inert import one_line
from memory_core.entries.knowledge import KnowledgeEntry, Origin
from memory_core.entries.records import CATEGORIES
from memory_core.session.rendering import TYPE_PREFIX

PROJECT_BANK = os.path.join("docs", "knowledge-bank")
"""Where a project keeps its knowledge-bank markdown, relative to its root."""
CATEGORY_FILES = {category: f"{category}.md" for category in CATEGORIES}
"""The file name of each category in a knowledge-bank directory."""
HISTORY_FILE = "entry-history.md"
"""The entries' history beside the global store's markdown and an export (history_file.py): not a category."""

_OBSERVATIONS = re.compile(r"^- Observation count:\s*(\d+)", re.MULTILINE)
_CONFIDENCE = re.compile(r"^- Confidence:\s*(high|medium|low)\b", re.MULTILINE | re.IGNORECASE)
_LAST_OBSERVED = re.compile(r"^- Last observed:\s*(\d{4}-\d{2}-\d{2}\S*)", re.MULTILINE)
_KEYWORDS = re.compile(r"^- Keywords:\s*(.+)$", re.MULTILINE)
_TRACKED = re.compile(r"^- (Observation count|Confidence|Last observed|Content-Hash|Keywords|Tags|Reasoning|"
                      r"References|Source project|Entry source|Scope|Anchors):", re.IGNORECASE)
_PROVENANCE = re.compile(r"^- Source:", re.IGNORECASE)  # a metadata field of the global store format (spec 002)
_ENCODED = re.compile(r"^- (Name|Description):(.*)$")  # the writer's JSON-string fields; other values are details
_REASONING = re.compile(r"^- Reasoning:\s*(.+)$", re.MULTILINE)
_REFERENCES = re.compile(r"^- References:\s*(.+)$", re.MULTILINE)
_SOURCE_PROJECT = re.compile(r"^- Source project:\s*(.+)$", re.MULTILINE)
_TAGS = re.compile(r"^- Tags:(.*)$", re.MULTILINE)
# What export writes so a round trip keeps how an entry was stored and which project sees it (issue 21, 4.4).
_ENTRY_SOURCE = re.compile(r"^- Entry source:\s*(retro|session-capture|manual|import)\s*$", re.MULTILINE)
_GLOBAL_SOURCE = re.compile(r"^- Source:.*,\s*(retro|session-capture|manual|import)\s*$", re.MULTILINE | re.IGNORECASE)
"""The global store format's `- Source: <project>, <how it was stored>` (spec 002): the store's own markdown, so a
rebuild keeps how an entry was stored (a tool-written entry must stay one: ADR 26 withdraws its bank block)."""
_SCOPE = re.compile(r"^- Scope:\s*(\S+)\s*$", re.MULTILINE)
_ANCHORS = re.compile(r"^- Anchors:\s*(.+)$", re.MULTILINE)  # the global form's and export's, a JSON list (ADR 26)


def project_bank(project_root: str) -> str:
    """The directory of a project's knowledge-bank markdown."""
    return os.path.join(project_root, PROJECT_BANK)


def category_file(directory: str, category: str) -> str:
    """The knowledge-bank file of one category in `directory` (`patterns.md`)."""
    return os.path.join(directory, CATEGORY_FILES[category])


def _parse_date(text: str) -> Optional[datetime]:
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def _keywords(fields: str) -> list[str]:
    match = _KEYWORDS.search(fields)
    if not match:
        return []
    written = json_strings(match.group(1))
    if written is not None:
        return written
    return [w for w in re.findall(r"[A-Za-z0-9][A-Za-z0-9 _-]*", match.group(1)) if w.strip()]


def _comment_mask(lines: list[str]) -> tuple[list[bool], bool]:
    """Which lines belong to HTML comments that start a line, and whether the last comment is still open."""
    mask: list[bool] = []
    in_comment = False
    for line in lines:
        starts = not in_comment and line.lstrip().startswith("<!--")
        mask.append(in_comment or starts)
        if in_comment or starts:
            in_comment = "-->" not in line
    return mask, in_comment


def without_comment_blocks(lines: list[str]) -> list[str]:
    """Drop HTML comments that start a line (format examples); inline `<!-- -->` text is content."""
    mask, _ = _comment_mask(lines)
    return [line for line, comment in zip(lines, mask) if not comment]


def ends_in_comment(text: str) -> bool:
    """Whether the text ends inside an HTML comment that was never closed (it would hide what follows)."""
    return _comment_mask(text.split("\n"))[1]


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


def _anchors(fields: str) -> tuple[Anchor, ...]:
    """The anchors a block's `- Anchors:` bullet lists; none when it is not a JSON list, an item not an anchor."""
    match = _ANCHORS.search(fields)
    if not match:
        return ()
    try:
        values = json.loads(match.group(1))
    except ValueError:
        return ()
    anchors = []
    for value in values if isinstance(values, list) else []:
        try:
            anchors.append(Anchor.from_dict(value))
        except (ValueError, AttributeError, TypeError):  # not an object, or no reference and blob
            continue
    return tuple(anchors)


def _header_lines(lines: list[str], mask: list[bool]) -> list[int]:
    """The lines that start an entry: `### ` outside HTML comments and fenced code (an example, not an entry)."""
    fenced = fence_mask(lines, mask)
    return [i for i, line in enumerate(lines) if not mask[i] and not fenced[i] and line.startswith("### ")]


def split_blocks(text: str) -> list[list[str]]:
    """Split a file into `### ` blocks (header line plus following lines); HTML comments are ignored."""
    return [block for _, _, block in block_spans(text.split("\n"), trim=False)]


def block_spans(lines: list[str], trim: bool = True) -> list[tuple[int, int, list[str]]]:
    """Each block of a file's lines as (first line, end, its lines without comments), as `split_blocks` reads it;
    the span ends at its last line of content, so trailing blank lines and comments are not part of it."""
    mask, _ = _comment_mask(lines)
    starts = _header_lines(lines, mask)
    spans = []
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        while trim and end > start + 1 and (mask[end - 1] or not lines[end - 1].strip()):
            end -= 1
        spans.append((start, end, [lines[i] for i in range(start, end) if not mask[i]]))
    return spans


def _encoded_field(line: str) -> Optional[tuple[str, str]]:
    """A `- Name:` or `- Description:` bullet whose value is a JSON string, as (field, value)."""
    match = _ENCODED.match(line)
    value = json_string(match.group(2)) if match else None
    return None if value is None else (match.group(1).lower(), value)


def tracked_line(line: str, origin: Origin) -> bool:
    """Whether the reader takes this bullet as a field of its own, so it is not one of the entry's details."""
    return bool(_TRACKED.match(line) or (origin == "global" and _PROVENANCE.match(line)) or _encoded_field(line))


def heading_name(header: str, category: str) -> str:
    """The entry name a `### ` header line gives: its text without one `{Type}: ` prefix."""
    text = header[4:].strip()
    prefix = TYPE_PREFIX[category]
    return text[len(prefix):] if text.startswith(prefix) else text


def _universal(fields: str) -> bool:
    return any("universal" in [t.strip().lower() for t in m.group(1).split(",")] for m in _TAGS.finditer(fields))


def parse_block(lines: list[str], category: str, position: int, origin: Origin) -> KnowledgeEntry:
    """Turn one `### ` block into a KnowledgeEntry."""
    body = lines[1:]
    fenced = fence_mask(body)  # fenced code after the description is an example: its bullets are no fields
    described = 0
    while described < len(body) and (fenced[described] or not body[described].startswith("- ")):
        described += 1
    meta = [line for line, code in zip(body[described:], fenced[described:]) if not code]
    fields = "\n".join(meta)
    encoded: dict[str, str] = {}
    for found in filter(None, map(_encoded_field, meta)):
        encoded.setdefault(*found)
    observations = _OBSERVATIONS.search(fields)
    confidence = _CONFIDENCE.search(fields)
    last = _LAST_OBSERVED.search(fields)
    reasoning = _REASONING.search(fields)
    references = _REFERENCES.search(fields)
    source_project = _SOURCE_PROJECT.search(fields)
    stored_source, scope = _ENTRY_SOURCE.search(fields), _SCOPE.search(fields)
    if stored_source is None and origin == "global":
        stored_source = _GLOBAL_SOURCE.search(fields)
    description = "\n".join(unescape_description_line(line) for line in body[:described]).strip()
    return KnowledgeEntry(
        name=encoded.get("name", heading_name(lines[0], category)),
        category=category,
        description=encoded.get("description", description),
        raw_text="\n".join(lines).strip(),
        observation_count=_count(observations.group(1)) if observations else 1,
        confidence=confidence.group(1).lower() if confidence else "medium",
        position=position,
        last_observed=_parse_date(last.group(1)) if last else None,
        origin=origin,
        keywords=_keywords(fields),
        details=[line for line in meta if line.startswith("- ") and not tracked_line(line, origin)],
        reasoning=decode_value(reasoning.group(1)) if reasoning else None,
        references=_references(references.group(1)) if references else [],
        source_project=decode_value(source_project.group(1)) if source_project else None,
        universal=_universal(fields),
        source=stored_source.group(1).lower() if stored_source else None,
        scope=scope.group(1) if scope else None,
        anchors=_anchors(fields),
    )


_NEAR_HEADING = re.compile(r"^(?:#{1,6} *(?:Anti-Pattern|Pattern|Heuristic)s? *:|###(?=[^\s#]))", re.IGNORECASE)
_FIELD_CHECKS = [  # a field the reader defaults when its value cannot be read: (bullet, accepted value, default)
    (re.compile(r"^- Observation count:(.*)$", re.IGNORECASE), re.compile(r"^\s*\d+"), "counted as 1"),
    (re.compile(r"^- Confidence:(.*)$", re.IGNORECASE), re.compile(r"^\s*(high|medium|low)\b", re.IGNORECASE),
     "not high, medium or low: medium used"),
]  # `Last observed` is free text in real banks ("Feature #022"): a date there is a bonus, not a rule


def _shown(line: str) -> str:
    text = one_line(line.strip())
    return text if len(text) <= 60 else text[:57] + "..."


def _field_problem(line: str) -> Optional[str]:
    for bullet, accepted, consequence in _FIELD_CHECKS:
        match = bullet.match(line)
        if match is None:
            continue
        value = match.group(1)
        if accepted.match(value):
            return None
        what = line[2:line.index(":")]
        return f"{what} `{_shown(value)}` is {'not a number: ' if 'count' in what.lower() else ''}{consequence}"
    return None


def bank_problems(path: str, lines: list[str]) -> list[str]:
    """What the reader skips or defaults in a file, one line each naming the file and line: a `### ` line in
    fenced code (an example), a heading that is not quite an entry heading, a field value it cannot read."""
    mask, _ = _comment_mask(lines)
    fenced = fence_mask(lines, mask)
    starts = _header_lines(lines, mask)
    problems = []
    for i, line in enumerate(lines):
        where = f"{path}:{i + 1}"
        if mask[i]:
            continue
        if fenced[i] and line.startswith("### "):
            problems.append(f"{where}: skipped `{_shown(line)}`: a heading in fenced code is an example, not an entry")
        elif not fenced[i] and _NEAR_HEADING.match(line) and not line.startswith("### "):
            problems.append(f"{where}: skipped `{_shown(line)}`: an entry heading starts with `### ` "
                            "(three # and a space)")
        elif not fenced[i] and starts and i > starts[0] and (problem := _field_problem(line)):
            problems.append(f"{where}: {problem}")
    return problems


def parse_file(path: str, category: str, origin: Origin, warn: bool = False) -> list[KnowledgeEntry]:
    """Parse one category file; an unreadable file yields nothing and a warning. With `warn`, every block the
    reader skips and every field it defaults is reported on stderr with its file and line."""
    try:
        text = read_regular_text(path, BANK_FILE_LIMIT)
    except OSError as exc:
        print(f"iflow-memory: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return []
    if warn:
        for problem in bank_problems(path, text.split("\n")):
            print(f"iflow-memory: {problem}", file=sys.stderr)
    return [parse_block(block, category, i, origin) for i, block in enumerate(split_blocks(text))]


class MarkdownKnowledgeBankReader:
    """Implements KnowledgeBankReader for `anti-patterns.md`, `heuristics.md`, `patterns.md`."""

    def __init__(self, warn_unknown: bool = True) -> None:
        self._warn_unknown = warn_unknown  # also: what the reader skips or defaults, by file and line

    def read(self, directory: str, origin: Origin) -> list[KnowledgeEntry]:
        """Parse the three category files of `directory`; other .md files are skipped with a warning."""
        if not os.path.isdir(directory):
            return []
        entries: list[KnowledgeEntry] = []
        for category in CATEGORIES:
            path = category_file(directory, category)
            if os.path.isfile(path):
                entries.extend(parse_file(path, category, origin, warn=self._warn_unknown))
            elif os.path.lexists(path):  # a FIFO, a device, a directory: never opened
                print(f"iflow-memory: cannot read {path}: not a regular file", file=sys.stderr)
        if self._warn_unknown:
            known = {*CATEGORY_FILES.values(), HISTORY_FILE}  # the history beside an export or the store's markdown
            for name in sorted(os.listdir(directory)):
                if name.endswith(".md") and name not in known:
                    print(f"iflow-memory: skipping {os.path.join(directory, name)} (not a category file)",
                          file=sys.stderr)
        return entries
