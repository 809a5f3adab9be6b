"""Rendering database entries into the session memory block (design I10)."""

from __future__ import annotations

from memory_core.models import Entry

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
