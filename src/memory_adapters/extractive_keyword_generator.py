"""LocalExtractiveKeywordGenerator: keywords picked from the entry's own words, no model, no network."""

from __future__ import annotations

import re
from collections import Counter

from memory_core.keywords import GENERIC_WORDS

_WORD = re.compile(r"[a-z][a-z0-9]+(?:-[a-z0-9]+)*")
_STOPWORDS = frozenset("""
a about above after again against all also always an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have having
he her here hers him his how i if in into is it its itself just let like made make makes many may me might
more most much must my no nor not now of off on once only or other our out over own same she should so some
such than that the their them then there these they this those through to too under until up upon us use
used uses using very was way we were what when where which while who whom why will with within without would
you your instead when one two three first second new get gets got via per redacted
""".split())
MAX_KEYWORDS = 10


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if len(w) >= 3]


def _content(word: str) -> bool:
    return word not in _STOPWORDS and word not in GENERIC_WORDS and not word.isdigit()


class LocalExtractiveKeywordGenerator:
    """Implements KeywordGenerator: frequent content words and adjacent pairs, title words first."""

    def generate(self, name: str, description: str, reasoning: str, category: str) -> list[str]:
        """Return up to 10 lowercase keywords taken verbatim from the entry."""
        scores: Counter[str] = Counter()
        for weight, text in ((3.0, name), (1.0, description), (0.5, reasoning)):
            words = _words(text)
            for i, word in enumerate(words):
                if _content(word):
                    scores[word] += weight
                    if i + 1 < len(words) and _content(words[i + 1]) and "-" not in word + words[i + 1]:
                        scores[f"{word}-{words[i + 1]}"] += weight * 0.8
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
        chosen: list[str] = []
        for keyword, _ in ranked:
            if any(keyword in c.split("-") or c in keyword.split("-") for c in chosen if "-" in c or "-" in keyword):
                continue
            chosen.append(keyword)
            if len(chosen) == MAX_KEYWORDS:
                break
        return chosen
