"""The AC1 banks of the local-model tests (their data is in benchmarks/common/parser_banks.py, which the relevance
suite shares) and how a test writes one into a project."""

from __future__ import annotations

from pathlib import Path

from benchmarks.common.parser_banks import BANKS, CONTEXT, PARSER_NAMES, PARSER_SYNONYMS, SLUG

__all__ = ["BANKS", "CONTEXT", "FILE_TITLES", "PARSER_NAMES", "PARSER_SYNONYMS", "SLUG", "write_bank"]

HEADER_PREFIX = {"anti-patterns": "Anti-Pattern: ", "patterns": "Pattern: ", "heuristics": ""}
FILE_TITLES = {"anti-patterns": "# Anti-Patterns", "patterns": "# Patterns", "heuristics": "# Heuristics"}


def write_bank(project: Path, entries) -> None:
    """Write entries as P/docs/knowledge-bank/{anti-patterns,heuristics,patterns}.md."""
    bank = project / "docs" / "knowledge-bank"
    bank.mkdir(parents=True, exist_ok=True)
    for category, title in FILE_TITLES.items():
        blocks = [f"{title}\n"]
        for cat, name, description in entries:
            if cat == category:
                blocks.append(f"### {HEADER_PREFIX[cat]}{name}\n{description}\n"
                              f"- Observation count: 1\n- Confidence: medium\n")
        (bank / f"{category}.md").write_text("\n".join(blocks), encoding="utf-8")
