"""Rendering the session memory block (design I10): its frame, and database entries in it."""

from __future__ import annotations

from typing import Optional, Sequence

from memory_core.records import Entry

SECTION_TITLES = {
    "anti-patterns": "### Anti-Patterns to Avoid",
    "heuristics": "### Heuristics",
    "patterns": "### Patterns to Follow",
}
BLOCK_TITLE = "## Engineering Memory (from knowledge bank)"
HEADER_PREFIX = {"anti-patterns": "Anti-Pattern: ", "patterns": "Pattern: ", "heuristics": ""}


def header_line(entry: Entry) -> str:
    """`### Anti-Pattern: Name`, `### Pattern: Name` or `### Name`, readable back to the same name."""
    prefix = HEADER_PREFIX[entry.category]
    if not prefix and entry.name.startswith("Heuristic: "):
        prefix = "Heuristic: "  # the reader strips one such prefix from heuristics
    return f"### {prefix}{entry.name}"


def detail_lines(entry: Entry) -> list[str]:
    """Markdown metadata bullets kept from an imported entry (its reasoning when it is a bullet list)."""
    lines = [line for line in entry.reasoning.splitlines() if line.strip()]
    if lines and all(line.startswith("- ") for line in lines):
        return lines
    return []


def render_entry(entry: Entry) -> str:
    """Render one entry the way knowledge-bank markdown shows it."""
    lines = [header_line(entry), entry.description]
    lines += detail_lines(entry)
    lines.append(f"- Observation count: {entry.observation_count}")
    lines.append(f"- Confidence: {entry.confidence}")
    return "\n".join(lines)


def render_block(sections: Sequence[tuple[str, Sequence[str]]], diagnostic: Optional[str] = None) -> str:
    """Render the memory block: title, optional diagnostic line, category sections, `---`."""
    lines = [BLOCK_TITLE, ""]
    if diagnostic:
        lines += [diagnostic, ""]
    for category, texts in sections:
        lines.append(SECTION_TITLES[category])
        lines.append("\n\n".join(texts))
        lines.append("")
    lines.append("---")
    return "\n".join(lines) + "\n"
