"""Per-query signals from the product's own code: stats, vector and keyword scores, cited files, query texts."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

import numpy as np

from benchmarks.relevance.sets import Session
from memory_core.ranking.context_query import compose_context_query, query_passages, text_passages
from memory_core.ports.context_source import ProjectContext
from memory_core.ranking.relevance_fusion import PassageSignals


def context_query(session: Session) -> str:
    """The query the injector composes for this session (a plain query stays as it is)."""
    if session.text is not None:
        return session.text
    return compose_context_query(ProjectContext(
        feature_slug=session.feature_slug, feature_description=session.spec_paragraph, phase=session.phase,
        changed_files=list(session.changed_files))) or ""


def feature_text(session: Session) -> str:
    """The feature's words without the `Phase:`/`Files:` parts: slug words and the spec paragraph."""
    if session.text is not None:
        return session.text
    slug = re.sub(r"^\d+-", "", session.feature_slug or "").replace("-", " ")
    return f"{slug}: {session.spec_paragraph}" if session.spec_paragraph else slug


def passages(session: Session) -> list[str]:
    """The passages the product scores for this session (a plain query: its clauses, as `search` does)."""
    if session.text is not None:
        return text_passages(session.text)
    return query_passages(ProjectContext(feature_slug=session.feature_slug,
                                         feature_description=session.spec_paragraph, phase=session.phase,
                                         changed_files=list(session.changed_files)))


@dataclass
class Signals:
    """What every method ranks from, for one query over the visible entries."""

    ids: list[str]
    stats: list
    vector: dict[str, float]
    keyword: dict[str, float]
    keyword_feature: dict[str, float]
    passages: list[PassageSignals]
    """Each passage's vector and keyword scores, from the product's RetrieveAndRank.passage_signals."""
    changed_files: tuple[str, ...]


class SignalSource:
    """Computes signals for one built store with the product's RetrieveAndRank (local model, FTS5)."""

    def __init__(self, retrieve, store, embedder, hidden_ok: bool = True) -> None:
        self.retrieve, self.store, self.embedder = retrieve, store, embedder
        self.all_stats = store.ranking_stats()
        self.order = [s.id for s in self.all_stats]
        vectors = dict(store.vectors())
        self.matrix = np.stack([np.frombuffer(vectors[i], dtype="<f4") for i in self.order])
        self._query_cache: dict[str, np.ndarray] = {}

    def query_vector(self, text: str) -> np.ndarray:
        """The local model's (cached) vector for a query text."""
        if text not in self._query_cache:
            self._query_cache[text] = np.asarray(self.embedder.embed_query(text), dtype=np.float32)
        return self._query_cache[text]

    def signals(self, session: Session, hidden: frozenset[str] = frozenset(),
                changed_files: Optional[tuple[str, ...]] = None) -> Signals:
        """All signals for one session, the hidden entries left out."""
        stats = [s for s in self.all_stats if s.id not in hidden]
        query = context_query(session)
        vector, report = self.retrieve.vector_signal(query, stats)
        if not report.ran:
            raise RuntimeError(f"the vector signal did not run: {report.reason}")
        keyword, _ = self.retrieve.keyword_signal(query)
        keyword_feature, _ = self.retrieve.keyword_signal(feature_text(session))
        texts = passages(session)
        found = self.retrieve.passage_signals(texts, stats, [self.query_vector(t) for t in texts])
        wanted = {s.id for s in stats}
        only = lambda scores: {k: v for k, v in scores.items() if k in wanted}  # noqa: E731
        return Signals([s.id for s in stats], stats, only(vector), only(keyword), only(keyword_feature),
                       [PassageSignals(only(p.vector), only(p.keyword)) for p in found],
                       session.changed_files if changed_files is None else changed_files)
