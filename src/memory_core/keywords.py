"""Per-keyword validation (design C3, spec 001 AC5)."""

from __future__ import annotations

import re
from typing import Iterable

from memory_core.redaction import contains_secret

KEYWORD_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]*$")
GENERIC_WORDS = frozenset(
    "code development software system application implementation feature project function "
    "method file data error bug fix update change".split()
)
MAX_KEYWORDS = 10
MIN_KEYWORDS = 3


def valid_keyword(keyword: str) -> bool:
    """True for a lowercase, hyphenated, non-generic label of at most three words."""
    return (
        bool(KEYWORD_PATTERN.match(keyword))
        and keyword not in GENERIC_WORDS
        and keyword.count("-") <= 2
        and len(keyword) <= 40
    )


def clean_keywords(candidates: Iterable[str]) -> list[str]:
    """Normalise candidates, keep the valid ones (first 10, no repeats), drop the rest."""
    kept: list[str] = []
    for raw in candidates:
        text = str(raw)
        keyword = "-".join(text.strip().lower().split())
        if valid_keyword(keyword) and keyword not in kept and not contains_secret(keyword) \
                and (text == keyword or not contains_secret(text)):  # one scan when nothing was normalised
            kept.append(keyword)
        if len(kept) == MAX_KEYWORDS:
            break
    return kept
