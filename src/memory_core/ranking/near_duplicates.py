"""Near-duplicates: does a new learning say what a stored one already says (ADR 26)?

A pair scores by the cosine of the two entries' vectors and the overlap of the words of their name and
description. The weights and thresholds are calibrated on the real knowledge bank by
`python -m benchmarks near-duplicates` (benchmarks/results/near_duplicates.json): above the closest pair of
distinct entries with a margin. Two entries of different categories are penalised: a bank deliberately keeps the
mistake (anti-pattern) beside the rule that avoids it (heuristic), and those pairs are the closest distinct ones.
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping, Optional, Sequence

from memory_core.entries.records import Entry

VECTOR_WEIGHT = 0.7
KEYWORD_WEIGHT = 0.3
THRESHOLD = 0.65
"""Score at or above which a pair is a near-duplicate (vectors known): the real bank's closest distinct pair scores
0.598, and 27 of 30 hand-written paraphrases of its entries score 0.659 or more (the benchmark's numbers)."""
KEYWORD_ONLY_THRESHOLD = 0.47
"""Word overlap at or above which a pair is a near-duplicate when no vector is known (no model, keyword-only store):
the real bank's closest distinct pair overlaps 0.313 (after the category penalty), and a wider margin, since words
alone cannot tell a rewording from a neighbour as the bank grows; it catches 9 of the 30 paraphrases."""
CROSS_CATEGORY_PENALTY = 0.20
"""Taken off the score of two entries of different categories: the real bank's anti-pattern and heuristic on one
topic reach 0.780 before it, which no threshold that catches a paraphrase could stay above."""
MIN_CANDIDATE_COSINE = (THRESHOLD - KEYWORD_WEIGHT) / VECTOR_WEIGHT
"""The least cosine that can still reach THRESHOLD (with a perfect word overlap): closer neighbours only are worth
scoring."""
CANDIDATES = 10
"""How many nearest stored entries a write scores."""

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# Words that say nothing about what a learning is about (a shared "the" is no overlap).
_STOPWORDS = frozenset(
    "a an and are as at be by for from has have in is it its of on or that the this to was were with not no use "
    "when".split())


def _stem(word: str) -> str:
    """A crude suffix strip so "reviewers" and "reviewer", "files" and "file", "parsing", "parses" and "parsed"
    count as one word."""
    if len(word) > 4 and word.endswith("ing"):
        word = word[:-3]
    elif len(word) > 3 and word.endswith("ed"):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def words(name: str, description: str) -> frozenset[str]:
    """The content words of a learning's name and description, lower-case and stemmed."""
    return frozenset(_stem(w) for w in _WORD.findall(f"{name} {description}".lower())
                     if len(w) > 1 and w not in _STOPWORDS)


def word_overlap(first: frozenset[str], second: frozenset[str]) -> float:
    """Jaccard overlap of two word sets (0 when both are empty)."""
    union = first | second
    return len(first & second) / len(union) if union else 0.0


def pair_score(cosine: Optional[float], overlap: float, same_category: bool) -> float:
    """The near-duplicate score of a pair: weighted cosine and word overlap, or the overlap alone without a
    cosine; less for two categories."""
    score = overlap if cosine is None else VECTOR_WEIGHT * cosine + KEYWORD_WEIGHT * overlap
    return score if same_category else score - CROSS_CATEGORY_PENALTY


def threshold(with_vector: bool) -> float:
    """The score a pair must reach to be flagged, with or without a cosine."""
    return THRESHOLD if with_vector else KEYWORD_ONLY_THRESHOLD


def near_duplicates(name: str, description: str, category: str,
                    candidates: Iterable[tuple[Entry, Optional[float]]],
                    exclude: Sequence[str] = ()) -> list[tuple[Entry, float]]:
    """The candidates (each with its cosine to the draft, or None without vectors) that say the same as the draft,
    best first; ids in `exclude` (the draft's own: a repeat is a reinforcement, not a near-duplicate) are left out."""
    draft_words = words(name, description)
    found: list[tuple[Entry, float]] = []
    for entry, cosine in candidates:
        if entry.id in exclude:
            continue
        score = pair_score(cosine, word_overlap(draft_words, words(entry.name, entry.description)),
                           entry.category == category)
        if score >= threshold(cosine is not None):
            found.append((entry, round(score, 4)))
    return sorted(found, key=lambda pair: (-pair[1], pair[0].id))


def near_duplicate_pairs(entries: Sequence[Entry],
                         neighbours: Mapping[str, Mapping[str, float]]) -> list[tuple[str, str, float]]:
    """Every pair of entries that are near-duplicates of each other, best first, as (id_a, id_b, score) with
    id_a < id_b. `neighbours` holds, for each entry with a vector, the cosines of its closest others (the vector
    maths is the adapter's); pairs without a cosine are judged by words alone."""
    by_id = {entry.id: entry for entry in entries}
    seen: set[tuple[str, str]] = set()
    pairs: list[tuple[str, str, float]] = []
    for entry_id, close in neighbours.items():
        entry = by_id.get(entry_id)
        if entry is None:
            continue
        for other_id, cosine in close.items():
            key = (min(entry_id, other_id), max(entry_id, other_id))
            other = by_id.get(other_id)
            if other is None or other_id == entry_id or key in seen:
                continue
            seen.add(key)
            for _, score in near_duplicates(entry.name, entry.description, entry.category, [(other, cosine)]):
                pairs.append((*key, score))
    return sorted(pairs, key=lambda pair: (-pair[2], pair[0], pair[1]))
