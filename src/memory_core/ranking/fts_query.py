"""FTS5 query sanitising (spec 004): raw context text in, a safe OR query out."""

from __future__ import annotations

import re
from typing import Optional

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# Words too common to tell entries apart (they would make every entry a "match"), plus the labels
# the composed context query puts in ("Phase:", "Files:").
_STOPWORDS = frozenset(
    "a an and are as at be by for from has have in is it its of on or that the this to was were with "
    "phase files".split()
)
MAX_TERMS = 64


def sanitise_fts_query(text: Optional[str]) -> Optional[str]:
    """Split into alphanumeric words, lower-case, drop stopwords and repeats, OR-join; None if empty."""
    if not text:
        return None
    terms: list[str] = []
    for word in _WORD.findall(text.lower()):
        if word in _STOPWORDS or word in terms:
            continue
        terms.append(word)
        if len(terms) == MAX_TERMS:
            break
    return " OR ".join(terms) if terms else None
