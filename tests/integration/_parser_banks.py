"""The AC1 banks of the local-model tests (their data is in benchmarks/common/parser_banks.py, which the relevance
suite shares) and how a test writes one into a project."""

from __future__ import annotations

from pathlib import Path

from benchmarks.common.bank import BankEntry
from benchmarks.common.bank import write_bank as write_bank_entries
from benchmarks.common.parser_banks import BANKS, CONTEXT, PARSER_NAMES, PARSER_SYNONYMS, SLUG

__all__ = ["BANKS", "CONTEXT", "FILE_TITLES", "PARSER_NAMES", "PARSER_SYNONYMS", "SLUG", "write_bank"]

FILE_TITLES = {"anti-patterns": "# Anti-Patterns", "patterns": "# Patterns", "heuristics": "# Heuristics"}


def write_bank(project: Path, entries) -> None:
    """Write (category, name, description) entries, each observed once, as
    P/docs/knowledge-bank/{anti-patterns,heuristics,patterns}.md (the benchmarks' writer)."""
    write_bank_entries(project, [BankEntry(category, name, description, 1, "medium")
                                 for category, name, description in entries], title_case=True)
