"""Per-entry raw signals for an absolute relevance (issue 23): cosine, BM25 on a fixed scale, cited files."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from benchmarks.relevance.signals import Signals, context_query
from memory_core.ranking.code_references import reference_match
from memory_core.ranking.fts_query import sanitise_fts_query

CANDIDATES = 10
"""The hook decides among the ranking's first few; the floor is fitted on those."""
FILE_NAMED = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)+[\w.-]+|[\w-]+\.[a-z][a-z0-9]{0,4})(?![\w/])")
ALL_HITS = 10**6
PATHS = ("full", "keyword")
"""The hook's two paths: with the model (spec hybrid) and without it (keyword + prominence, no cosine)."""


def named_files(text: str, changed_files: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Paths and file names a prompt mentions (`hooks/session-start.sh`, `board.py`), plus the changed files."""
    return tuple(changed_files) + tuple(FILE_NAMED.findall(text or ""))


class TermWeights:
    """FTS5's idf of each query word in one store, so BM25 can be divided by the most a query could score."""

    def __init__(self, store, entries: int) -> None:
        self.store, self.entries = store, entries
        self._df: dict[str, int] = {}

    def idf(self, term: str) -> float:
        """FTS5's bm25 idf: log((N - n + 0.5) / (n + 0.5)), floored at 1e-6 as FTS5 does."""
        if term not in self._df:
            self._df[term] = len(self.store.keyword_search(term, ALL_HITS))
        n = self._df[term]
        return max(math.log((self.entries - n + 0.5) / (n + 0.5)), 1e-6)

    def idf_sum(self, query: str) -> float:
        """The sum of the sanitised query's words' idf (0 when it has none)."""
        match = sanitise_fts_query(query)
        return sum(self.idf(t) for t in match.split(" OR ")) if match else 0.0


@dataclass
class Candidate:
    """One ranked entry for one query: its grade and raw features."""

    entry_id: str
    grade: int
    features: dict[str, float]


@dataclass
class QueryCandidates:
    """A query's candidates on each path, best first."""

    key: str
    relevant: dict[str, int]
    paths: dict[str, list[Candidate]] = field(default_factory=dict)

    @property
    def answerable(self) -> bool:
        """Whether the query has judged entries."""
        return bool(self.relevant)


def query_candidates(key: str, s: Signals, relevant: dict[str, int], scorer, weights: TermWeights,
                     session) -> QueryCandidates:
    """The first CANDIDATES of the spec ranking with and without the model, with each entry's raw features."""
    text = context_query(session)
    idf_sum = weights.idf_sum(text) or 1.0
    files = named_files(text, s.changed_files)
    found = QueryCandidates(key, relevant)
    rankings = {"full": scorer.spec.score(s.stats, s.vector, s.keyword, s.changed_files)[0],
                "keyword": scorer.spec.score(s.stats, {}, s.keyword, s.changed_files)[0]}
    signalled = {"full": set(s.keyword) | {i for i, v in s.vector.items() if v > 0}, "keyword": set(s.keyword)}
    for path, scores in rankings.items():
        # as the product's search: the entries a signal found first, those prominence alone ranks after them
        ranked = sorted(s.ids, key=lambda i: (i not in signalled[path], -scores.get(i, 0.0), i))[:CANDIDATES]
        found.paths[path] = [Candidate(i, relevant.get(i, 0), {
            "cosine": s.vector.get(i, 0.0),
            # a prompt's clause can match an entry its whole text dilutes
            "passage_cosine": max((p.vector.get(i, 0.0) for p in s.passages), default=0.0),
            "bm25": s.keyword.get(i, 0.0),
            "bm25_idf": s.keyword.get(i, 0.0) / idf_sum,
            "cites": reference_match(scorer.cited.get(i, ()), files) if files else 0.0}) for i in ranked]
    return found
