"""The signals a session start's selection carries for the injection journal (ADR 27): what the ranking had in hand
for each selected entry, on 0-1 scales, computed for the selected few only (never for the whole store)."""

from __future__ import annotations

from datetime import datetime
from typing import Mapping, Optional, Sequence

from memory_core.entries.records import Entry, EntryStats
from memory_core.ranking.code_references import reference_match
from memory_core.ranking.relevance_signals import COSINE, WORD_SHARE, entry_words, query_words
from memory_core.ranking.scoring import prominence

REFERENCE_MATCH = "reference_match"
"""How closely the entry's references match the files in play (1.0 same path, 0.6 same name, 0.3 same directory)."""
PROMINENCE = "prominence"
"""The prominence component: observations, confidence, recency and recalls, 0-1."""


def selection_signals(entries: Sequence[Entry], query: Optional[str], cosines: Optional[Mapping[str, float]],
                      stats: Sequence[EntryStats], now: datetime,
                      changed_files: Sequence[str] = ()) -> dict[str, dict[str, float]]:
    """{entry id: signals} for the selected `entries`: the cosine when the vector signal ran (`cosines` not None),
    the share of the context query's words it holds when there is a query, the reference match when the ranking
    read `changed_files`, and its prominence among `stats`."""
    words = query_words(query)
    top = max((s.observation_count for s in stats), default=1)
    found: dict[str, dict[str, float]] = {}
    for entry in entries:
        signals = {PROMINENCE: prominence(entry, top, now)}
        if cosines is not None:
            signals[COSINE] = cosines.get(entry.id, 0.0)
        if words:
            held = entry_words(entry)
            signals[WORD_SHARE] = sum(w in held for w in words) / len(words)
        if changed_files:
            signals[REFERENCE_MATCH] = reference_match(entry.references, changed_files)
        found[entry.id] = signals
    return found
