"""One entry as a knowledge-bank block (spec 002 formats) that the reader parses back to the same fields.

An ordinary entry looks as people write one; text that markdown cannot carry as is goes through
`markdown_codec` (ADR 15)."""

from __future__ import annotations

import json
from datetime import timezone

from memory_adapters.markdown.codec import encode_value, escape_description_line
from memory_adapters.markdown.fences import unbalanced_fences
from memory_adapters.markdown.knowledge_bank import heading_name, tracked_line
from memory_core.entries.knowledge import Origin
from memory_core.entries.records import Entry
from memory_core.session.rendering import entry_heading


def last_observed(entry: Entry) -> str:
    """The entry's update time as the `Last observed` field writes it (UTC, to the second)."""
    return entry.updated_at.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def heading(entry: Entry) -> tuple[str, list[str]]:
    """The `### ` header, and a JSON `- Name:` bullet when the name cannot sit on it (a stored multi-line name)."""
    line = entry_heading(entry.category, entry.name)
    if "\n" not in entry.name and "\r" not in entry.name and heading_name(line, entry.category) == entry.name:
        return line, []
    shown = " ".join(entry.name.split()) or "(unnamed)"
    return entry_heading(entry.category, shown), ["- Name: " + json.dumps(entry.name, ensure_ascii=False)]


def description_lines(description: str) -> list[str]:
    """The description's lines, escaped where they would read as structure; a JSON bullet when lines cannot
    carry it (a carriage return, or blanks around it)."""
    if "\r" in description or description != description.strip():
        return ["- Description: " + json.dumps(description, ensure_ascii=False)]
    lines = description.split("\n")
    fences = unbalanced_fences(lines)  # an open fence would hide the entries after this one from the reader
    return [escape_description_line(line, fences) for line in lines]


def reasoning_lines(reasoning: str, origin: Origin) -> list[str]:
    """Bullets as they are when every line is a bullet the reader keeps as a detail; else one `- Reasoning:`."""
    if not reasoning:
        return []
    lines = reasoning.split("\n")
    if reasoning == reasoning.strip() and "\r" not in reasoning and all(
            line.startswith("- ") and not tracked_line(line, origin) for line in lines):
        return lines
    return ["- Reasoning: " + encode_value(reasoning)]


def anchors_value(entry: Entry) -> str:
    """The `- Anchors:` bullet's value: the entry's anchors as one JSON line."""
    return json.dumps([anchor.to_dict() for anchor in entry.anchors], ensure_ascii=False)


def entry_block(entry: Entry, global_format: bool) -> str:
    """The markdown block of an entry, in the global (Content-Hash, Source, Tags) or the local form."""
    origin: Origin = "global" if global_format else "local"
    header, name = heading(entry)
    lines = [header, *description_lines(entry.description), *name]
    if global_format:
        provenance = " ".join((entry.source_project or "iflow-memory").split())
        lines += [f"- Content-Hash: sha256:{entry.id}", f"- Source: {provenance}, {entry.source}"]
    lines += reasoning_lines(entry.reasoning, origin)
    if entry.references:
        lines.append("- References: " + json.dumps(entry.references, ensure_ascii=False))
    if global_format and entry.anchors:  # never in a project's bank: the user's own writing (ADR 26)
        lines.append("- Anchors: " + anchors_value(entry))
    if entry.keywords:
        lines.append("- Keywords: " + json.dumps(entry.keywords, ensure_ascii=False))
    if entry.source_project is not None:
        lines.append("- Source project: " + encode_value(entry.source_project))
    lines.append(f"- Observation count: {entry.observation_count}")
    lines.append(f"- Last observed: {last_observed(entry)}")
    if global_format or entry.source_project is None:
        lines.append("- Tags: universal")
    lines.append(f"- Confidence: {entry.confidence}")
    return "\n".join(lines)
