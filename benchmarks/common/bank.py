"""Knowledge-bank markdown, written the way the markdown reader expects it (one file per category)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, NamedTuple

from benchmarks.common.store import CATEGORIES, HEADER_PREFIX


class BankEntry(NamedTuple):
    """One `### ` block: its name, its text (description, optionally more lines) and its two metadata lines."""

    category: str
    name: str
    text: str
    observations: int
    confidence: str


def write_bank(project: Path, entries: Iterable[BankEntry], title_case: bool = False) -> Path:
    """Write `entries` as PROJECT/docs/knowledge-bank/<category>.md (every category, in file order); returns
    the project."""
    bank = Path(project) / "docs" / "knowledge-bank"
    bank.mkdir(parents=True, exist_ok=True)
    by_category: dict[str, list[str]] = {category: [] for category in CATEGORIES}
    for entry in entries:
        by_category[entry.category].append(
            f"### {HEADER_PREFIX[entry.category]}{entry.name}\n{entry.text}\n"
            f"- Observation count: {entry.observations}\n- Confidence: {entry.confidence}")
    for category, blocks in by_category.items():
        heading = category.title() if title_case else category
        (bank / f"{category}.md").write_text(f"# {heading}\n\n" + "\n\n".join(blocks) + "\n", encoding="utf-8")
    return project
