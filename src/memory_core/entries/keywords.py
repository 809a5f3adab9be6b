"""Per-keyword validation (design C3, spec 001 AC5)."""

from __future__ import annotations

import re
from typing import Iterable

from memory_core.safety.redaction import contains_secret

KEYWORD_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]*$")
GENERIC_WORD_LIST = tuple(
    "code development software system application implementation feature project function "
    "method file data error bug fix update change".split()
)
"""Words too general to label anything, in the order the keyword prompt lists them."""
GENERIC_WORDS = frozenset(GENERIC_WORD_LIST)
MAX_KEYWORDS = 10
MIN_KEYWORDS = 3
MAX_KEYWORD_WORDS = 3
MAX_KEYWORD_LENGTH = 40


def valid_keyword(keyword: str) -> bool:
    """True for a lowercase, hyphenated, non-generic label of at most three words."""
    return (
        bool(KEYWORD_PATTERN.match(keyword))
        and keyword not in GENERIC_WORDS
        and keyword.count("-") < MAX_KEYWORD_WORDS
        and len(keyword) <= MAX_KEYWORD_LENGTH
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
