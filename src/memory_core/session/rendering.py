"""Rendering the session memory block (design I10): its frame, and database entries in it.

Everything the block prints from stored text goes through `memory_core.safety.inert` (ADR 13); `header_line` stays
the verbatim heading the knowledge-bank markdown writers need."""

from __future__ import annotations

import functools
from typing import Optional, Sequence

from memory_core.safety.inert import inert_block_text, inert_line, one_line, strip_controls
from memory_core.entries.records import CATEGORIES, CATEGORY_TITLES, Entry

_SECTION_ADVICE = {"anti-patterns": " to Avoid", "heuristics": "", "patterns": " to Follow"}
SECTION_TITLES = {category: f"### {CATEGORY_TITLES[category]}{_SECTION_ADVICE[category]}" for category in CATEGORIES}
BLOCK_TITLE = "## Engineering Memory (from knowledge bank)"
TYPE_PREFIX = {"anti-patterns": "Anti-Pattern: ", "patterns": "Pattern: ", "heuristics": "Heuristic: "}
"""The `{Type}: ` an entry heading may start with; the knowledge-bank reader strips one."""
HEADER_PREFIX = {**TYPE_PREFIX, "heuristics": ""}
"""The prefix an entry heading is written with: heuristics go without one."""
_TITLES = {title.lstrip("# ").casefold() for title in (*SECTION_TITLES.values(), BLOCK_TITLE)}


def entry_heading(category: str, name: str) -> str:
    """`### Anti-Pattern: Name`, `### Pattern: Name` or `### Name` for a name of this category."""
    prefix = HEADER_PREFIX[category]
    if not prefix and name.startswith(TYPE_PREFIX[category]):
        prefix = TYPE_PREFIX[category]  # the reader strips one such prefix from heuristics
    return f"### {prefix}{name}"


def header_line(entry: Entry) -> str:
    """`### Anti-Pattern: Name`, `### Pattern: Name` or `### Name`, readable back to the same name."""
    return entry_heading(entry.category, entry.name)


def _distinct_heading(category: str, heading: str) -> str:
    """An entry heading that reads like a section or block title gets its type prefix."""
    if heading[4:].strip().rstrip("#").strip().casefold() in _TITLES:
        return f"### {TYPE_PREFIX[category]}{heading[4:].lstrip()}"
    return heading


@functools.lru_cache(maxsize=256)  # the block is rendered again while it is fitted to its budget: same texts
def inert_entry_text(category: str, text: str) -> str:
    """An entry (`### ` heading, then its lines) as the block prints it: the heading on one line and distinct
    from the block's own titles, every other line inert."""
    head, newline, body = text.partition("\n")
    if not head.startswith("### "):
        return inert_block_text(text)
    return _distinct_heading(category, "### " + one_line(head[4:])) + newline + inert_block_text(body)


def detail_lines(entry: Entry) -> list[str]:
    """Markdown metadata bullets kept from an imported entry (its reasoning when it is a bullet list)."""
    lines = [line for line in entry.reasoning.splitlines() if line.strip()]
    if lines and all(line.startswith("- ") for line in lines):
        return lines
    return []


CHECK_PREFIX = "- Code check: "
"""The line a learning whose citations no longer hold shows (ADR 26): "- Code check: cites src/a.py, now src/b.py"."""


def check_line(note: str) -> str:
    """The one line an anchor note is shown as ("" for none); one line whatever the stored paths hold."""
    return f"{CHECK_PREFIX}{one_line(note)}" if note else ""


def render_entry(entry: Entry, note: str = "") -> str:
    """Render one entry the way knowledge-bank markdown shows it, inert; `note`: what the check of its citations
    found, shown as one more line."""
    lines = [entry_heading(entry.category, one_line(entry.name)), entry.description]
    lines += detail_lines(entry)
    lines.append(f"- Observation count: {entry.observation_count}")
    lines.append(f"- Confidence: {entry.confidence}")
    if note:
        lines.append(check_line(note))
    return inert_entry_text(entry.category, "\n".join(lines))


INDEX_NAME_CHARS = 120
"""An index line's name is cut here: the line points at an entry, its text is one fetch away."""


def index_line(entry_id: str, name: str) -> str:
    """One inert line for an entry the `index` style names without printing it: `- <whole id> — <name>`."""
    title = one_line(name)
    if len(title) > INDEX_NAME_CHARS:
        title = title[:INDEX_NAME_CHARS - 1].rstrip() + "…"
    return inert_line(f"- {one_line(entry_id)} — {title}")


def index_hint(listed: int) -> str:
    """The line telling the agent how to read the entries an index block only names."""
    if listed == 1:
        return ("*One entry is listed by id and name only: read it in full with the MCP tool `get_memory` (its id) "
                "or `iflow-memory show ID`.*")
    return (f"*{listed} entries are listed by id and name only: read them in full with the MCP tool `get_memory` "
            "(their ids) or `iflow-memory show ID`.*")


def render_block(sections: Sequence[tuple[str, Sequence[str]]], diagnostic: Optional[str] = None) -> str:
    """Render the memory block: title, optional diagnostic line, category sections, `---`; entry texts are
    made inert here too, so the markdown pipeline's raw entries cannot forge the frame either."""
    return render_index_block([(category, texts, ()) for category, texts in sections], diagnostic)


def render_index_block(sections: Sequence[tuple[str, Sequence[str], Sequence[str]]],
                       diagnostic: Optional[str] = None) -> str:
    """`render_block` whose sections also end with one-line entries (`index_line`): each section holds its
    entries in full, then a blank line, then its listed ones; lines are made inert here too."""
    lines = [BLOCK_TITLE, ""]
    if diagnostic:
        lines += [strip_controls(diagnostic), ""]
    for category, texts, listed in sections:
        lines.append(SECTION_TITLES[category])
        parts = []
        if texts:
            parts.append("\n\n".join(inert_entry_text(category, text) for text in texts))
        if listed:
            parts.append("\n".join(inert_line(one_line(line)) for line in listed))
        lines.append("\n\n".join(parts))
        lines.append("")
    lines.append("---")
    return "\n".join(lines) + "\n"
