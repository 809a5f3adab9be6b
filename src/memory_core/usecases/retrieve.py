"""Retrieve-and-rank: context query -> vector + keyword retrieval -> scores -> balanced selection."""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Mapping, Optional, Sequence

from memory_core.errors import DatabaseCorrupt, EmbeddingError, StorageError
from memory_core.ranking.fts_query import sanitise_fts_query
from memory_core.entries.records import Entry, EntryStats
from memory_core.ports.candidate_source import PROMINENT_CANDIDATES, CandidateSource, RankingSummary
from memory_core.ports.clock import Clock
from memory_core.ports.embedder import Embedder
from memory_core.ports.entry_store import EntryStore
from memory_core.ports.keyword_index import KeywordIndex
from memory_core.ports.vector_index import VectorIndex
from memory_core.ranking.absolute_relevance import (BM25_SCALE, RelevanceModel, keyword_signal, read_scale,
                                                    relevance_model)
from memory_core.ranking.relevance_signals import signals_of
from memory_core.ranking.code_references import reference_scores
from memory_core.ports.reference_index import ReferenceIndex
from memory_core.ranking.context_query import text_passages
from memory_core.ranking.relevance_fusion import PROMINENCE_ONLY, PassageSignals, RelevanceTuning, relevance_scores
from memory_core.ranking.scoring import Weights, effective_weights, final_scores, scores_with_prominence
from memory_core.ranking.selection import select_by_scores
from memory_core.ranking.selection_signals import selection_signals
from memory_core.embedding.space import EmbeddingSpace, pinned_space

KEYWORD_CANDIDATES = 500
PROMINENCE_KEPT_SECONDS = 60
"""How long a search reuses the prominences it computed (recency moves by under 1e-5 in that time)."""
RANKINGS = ("spec", "relevance")
"""`spec`: the spec 001 formula (divide-by-max, fixed weights); `relevance`: relevance_fusion (ADR 18)."""
NO_VECTORS_YET = "no entry has a vector yet"
KEYWORD_SEARCH_FAILED = "keyword search did not finish (database busy or slow)"
_ID, _CATEGORY = attrgetter("id"), attrgetter("category")


@dataclass
class SignalReport:
    """Whether one retrieval signal ran, how many entries it matched, and why not if it did not."""

    ran: bool = False
    matches: int = 0
    reason: str = ""


@dataclass
class _SearchBasis:
    """What `search` derives from the entries' ranking stats alone, kept between searches."""

    minute: int
    stats: list[EntryStats]
    prominences: dict[str, float]
    ids: set[str]
    by_id: dict[str, EntryStats]


@dataclass
class RankedEntry:
    """An entry with its final score; from `search`, also its raw signals and absolute relevance."""

    entry: Entry
    score: float
    signals: Mapping[str, float] = field(default_factory=dict)
    """From `search`: raw cosine, best clause cosine, BM25 (or keyword_match on another scale, see
    `absolute_relevance`) and the others of `relevance_signals`; from `rank`, `selection_signals`' few."""
    relevance: Optional[float] = None
    """0-1 on a fixed scale (None outside `search`): comparable across queries, unlike `score`."""


@dataclass
class Retrieval:
    """The outcome of one retrieval: the selection plus what the diagnostic line needs."""

    selected: list[RankedEntry]
    total: int
    context_query: Optional[str]
    vector: SignalReport = field(default_factory=SignalReport)
    keyword: SignalReport = field(default_factory=SignalReport)
    weights: Weights = field(default_factory=Weights)
    pending_embeddings: int = 0
    model: Optional[str] = None
    relevance_model: Optional[RelevanceModel] = None
    """From `search`: the model that gave the results their relevance (its floors are the ones to compare with:
    it depends on the vector signal, the keyword index's scale and the store's size, see `read_scale`)."""
    anchors: dict = field(default_factory=dict)
    """From a checked `search` (CLI, MCP, library): entry id → the states of its citations of this project (ADR 26)."""

    @property
    def search_floor(self) -> Optional[float]:
        """The relevance a result of `search` needs to be a good match (None outside `search`)."""
        return None if self.relevance_model is None else self.relevance_model.search_floor

    def is_good(self, ranked: RankedEntry) -> bool:
        """Whether a selected entry's relevance reaches the search floor (True outside `search`: neither exists)."""
        floor = self.search_floor
        return floor is None or ranked.relevance is None or ranked.relevance >= floor

    def good_matches(self) -> list[RankedEntry]:
        """The selected entries that are good matches, best first."""
        return [r for r in self.selected if self.is_good(r)]


class RetrieveAndRank:
    """Finds and ranks the entries that matter for a context query."""

    def __init__(
        self,
        store: EntryStore,
        clock: Clock,
        weights: Weights,
        keyword_index: Optional[KeywordIndex] = None,
        embedder: Optional[Embedder] = None,
        vector_index: Optional[VectorIndex] = None,
        embedder_problem: str = "no embedding provider configured",
        ranking: str = "spec",
        references: Optional[ReferenceIndex] = None,
        tuning: RelevanceTuning = RelevanceTuning(),
        prominent_candidates: int = PROMINENT_CANDIDATES,
    ) -> None:
        if ranking not in RANKINGS:
            raise ValueError(f"unknown ranking {ranking!r} (expected one of {', '.join(RANKINGS)})")
        self._store = store
        self._clock = clock
        self._weights = weights
        self._keyword_index = keyword_index
        self._embedder = embedder
        self._vector_index = vector_index
        self._embedder_problem = embedder_problem
        self._ranking = ranking
        self._references = references
        self._tuning = tuning
        self._prominent_candidates = prominent_candidates
        self._kept_basis: Optional[_SearchBasis] = None

    def run(self, context_query: Optional[str], limit: int, scopes: Optional[Sequence[str]] = None,
            changed_files: Sequence[str] = (), passage_texts: Sequence[str] = ()) -> Retrieval:
        """Retrieve candidates (universal and `scopes`' entries) and return the category-balanced selection
        (`passage_texts`: the context's passages, see `query_passages`, for the `relevance` ranking)."""
        stats, summary = self.basis(scopes, limit)
        vector_scores, vector = self.vector_signal(context_query, stats, summary)
        keyword_scores, keyword = self.keyword_signal(context_query)
        passages = self.passage_signals(passage_texts, stats, summary=summary) if self.uses_passages else []
        stats = self.with_found(stats, summary, scopes, vector_scores, keyword_scores, *passages)
        return self.rank(context_query, stats, (vector_scores, vector), (keyword_scores, keyword), limit,
                         changed_files=changed_files, passages=passages, summary=summary)

    def basis(self, scopes: Optional[Sequence[str]] = None, limit: int = 0,
              category: Optional[str] = None) -> tuple[list[EntryStats], Optional[RankingSummary]]:
        """The entries to rank before any signal ran: every entry in scope, or, from a candidate source, the
        prominent ones (at least `limit`; of `category` when given) and a summary of the rest (then `with_found`
        adds what the signals find)."""
        if isinstance(self._store, CandidateSource) and limit >= 0:  # -1: no limit, so every entry is ranked
            prominent = self._store.prominent_stats(max(self._prominent_candidates, limit), scopes, category)
            return prominent, self._store.ranking_summary(scopes, category)
        return self._store.ranking_stats(scopes), None

    def with_found(self, stats: list[EntryStats], summary: Optional[RankingSummary],
                   scopes: Optional[Sequence[str]], *found) -> list[EntryStats]:
        """`stats` plus the entries in scope that a signal scored (score dicts or PassageSignals), when the
        basis came from a candidate source; unchanged otherwise."""
        if summary is None:
            return stats
        known = {s.id for s in stats}
        wanted: dict[str, None] = {}
        for scores in found:
            for part in (scores.vector, scores.keyword) if isinstance(scores, PassageSignals) else (scores,):
                wanted.update((i, None) for i, v in part.items() if v > 0 and i not in known)
        return stats + self._store.ranking_stats_of(list(wanted), scopes) if wanted else stats

    @property
    def embedder(self) -> Optional[Embedder]:
        """The query embedder (None: queries rank without vectors)."""
        return self._embedder

    @property
    def vector_index(self) -> Optional[VectorIndex]:
        """The vector index the query embedder's vectors are compared against."""
        return self._vector_index

    @property
    def embedder_problem(self) -> str:
        """Why there is no query embedder, as the diagnostic line says it."""
        return self._embedder_problem

    @property
    def uses_passages(self) -> bool:
        """Whether the configured ranking scores query passages (`relevance`) beside the whole query."""
        return self._ranking == "relevance"

    def passage_signals(self, passages: Sequence[str], stats: list[EntryStats],
                        vectors: Optional[Sequence[Optional[Sequence[float]]]] = None,
                        summary: Optional[RankingSummary] = None) -> list[PassageSignals]:
        """Vector and keyword scores of each passage (`vectors`: their query vectors, already embedded; a
        None among them, or a vector signal that cannot run, leaves that passage's vector scores empty)."""
        can_compare = self.vector_blocker(passages[0] if passages else None, stats, summary=summary) is None
        found = []
        for n, passage in enumerate(passages):
            vector_scores: dict[str, float] = {}
            if can_compare:
                query_vector = vectors[n] if vectors is not None else None
                try:
                    if vectors is None:
                        query_vector = self._embedder.embed_query(passage)
                    if query_vector is not None:
                        vector_scores = self._vector_index.similarities(query_vector)
                except EmbeddingError:
                    can_compare = False  # the provider failed once: the other passages go without it too
            found.append(PassageSignals(vector_scores, self.keyword_signal(passage)[0]))
        return found

    def rank(self, context_query: Optional[str], stats: list[EntryStats],
             vectors: tuple[dict[str, float], SignalReport],
             keywords: tuple[dict[str, float], SignalReport], limit: int,
             space: Optional[EmbeddingSpace] = None, changed_files: Sequence[str] = (),
             passages: Sequence[PassageSignals] = (), summary: Optional[RankingSummary] = None) -> Retrieval:
        """Combine signals already computed into the final scores and the category-balanced selection; `space`
        stands for the pinned one when the caller is about to pin it; `changed_files` and `passages` feed the
        code-reference and passage signals of the `relevance` ranking; `summary` counts the entries in scope
        when `stats` holds candidates only."""
        (vector_scores, vector), (keyword_scores, keyword) = vectors, keywords
        if vector_scores or keyword_scores:  # another project's entries never shape the normalisation either
            vector_scores, keyword_scores = _only_these(set(map(_ID, stats)), vector_scores, keyword_scores)
        scores, used = self.score(stats, vector_scores, keyword_scores, changed_files, passages)
        chosen = select_by_scores(stats, scores, _ID, _CATEGORY, limit)
        entries = {e.id: e for e in self._store.get_many([s.id for s in chosen])}
        read_files = changed_files if self._ranking == "relevance" and self._references is not None else ()
        signals = selection_signals(list(entries.values()), context_query, vector_scores if vector.ran else None,
                                    stats, self._clock.now(), read_files)
        selected = [RankedEntry(entries[s.id], scores[s.id], signals[s.id]) for s in chosen if s.id in entries]
        space = space or pinned_space(self._store)
        pending = sum(1 for s in stats if not s.has_embedding) if summary is None else summary.pending
        return Retrieval(
            selected=selected,
            total=len(stats) if summary is None else summary.total,
            context_query=context_query,
            vector=vector,
            keyword=keyword,
            weights=used,
            pending_embeddings=pending if space is not None else 0,
            model=space.model if space is not None and vector.ran else None,
        )

    def search(self, query: str, limit: int = 10, category: Optional[str] = None,
               scopes: Optional[Sequence[str]] = None) -> Retrieval:
        """Rank entries for an explicit query by score alone (no category balancing), optionally one category;
        with `scopes`, only universal entries and those scopes' ones."""
        stats, summary = self.basis(scopes, limit, category)
        keyword_scores, keyword = self.keyword_signal(query)  # first: a host may be embedding the query meanwhile
        vector_scores, vector = self.vector_signal(query, stats, summary)
        stats = self.with_found(stats, summary, scopes, vector_scores, keyword_scores)
        if category is not None:
            stats = [s for s in stats if s.category == category]
        kept = self._kept_for_search(stats)  # a host searching again and again reuses what did not change
        vector_scores, keyword_scores = _only_these(kept.ids, vector_scores, keyword_scores)
        passages: list[PassageSignals] = []
        if self._ranking == "spec":
            scores, used = scores_with_prominence(kept.prominences, vector_scores, keyword_scores, self._weights)
        else:
            texts = text_passages(query)  # one clause: the whole query is the only passage
            passages = self.passage_signals(texts, stats, summary=summary) if len(texts) > 1 else []
            scores, used = self.score(stats, vector_scores, keyword_scores, passages=passages)
        # Entries a retrieval signal found are chosen before any it did not (prominence alone fills the rest),
        # and the chosen are shown best score first: the order is the score the user sees.
        found = set(keyword_scores) | {k for k, v in vector_scores.items() if v > 0}
        chosen = _best(scores, found, limit)
        if len(chosen) < limit:
            chosen += _best(scores, kept.ids - found, limit - len(chosen))
        top = [kept.by_id[i] for i in sorted(chosen, key=lambda i: (-scores[i], i))]
        entries = {e.id: e for e in self._store.get_many([s.id for s in top])}
        selected = [RankedEntry(entries[s.id], scores[s.id]) for s in top if s.id in entries]
        total = len(stats) if summary is None else summary.total
        model = self._add_relevance(query, selected, vector_scores, keyword_scores, vector.ran, total,
                                    [p.vector for p in passages] if passages else None)
        return Retrieval(selected=selected, total=total, context_query=query, vector=vector,
                         keyword=keyword, weights=used, relevance_model=model)

    def _add_relevance(self, query: str, selected: list[RankedEntry], vector_scores: Mapping[str, float],
                       keyword_scores: Mapping[str, float], vector_ran: bool, entries: int,
                       clause_cosines: Optional[list[Mapping[str, float]]] = None) -> RelevanceModel:
        """Give each selected entry its raw signals and absolute relevance, and return the model that scored them
        (a query of several clauses has each clause embedded, unless the ranking did already (`clause_cosines`):
        a clause can match an entry the whole query dilutes; `entries`: how many are in scope, see `read_scale`)."""
        index = self._keyword_index
        scale = read_scale(index.keyword_scale if index is not None else BM25_SCALE, entries)
        model = relevance_model(vector_ran, scale)
        if clause_cosines is None and vector_ran and len(texts := text_passages(query)) > 1:
            try:
                clause_cosines = [self._vector_index.similarities(self._embedder.embed_query(t)) for t in texts]
            except EmbeddingError:
                clause_cosines = None  # the whole query's cosine stands in for its clauses'
        bm25 = keyword_scores if scale == BM25_SCALE else None  # another scale says matched or not, no BM25
        signals = signals_of([r.entry for r in selected], query, vector_scores if vector_ran else None,
                             (clause_cosines or []) if vector_ran else [], bm25)
        for ranked, raw in zip(selected, signals):
            matched = {} if bm25 is not None else keyword_signal(keyword_scores.get(ranked.entry.id, 0.0), scale)
            ranked.signals = raw | matched
            ranked.relevance = model.relevance(ranked.signals)
        return model

    def _kept_for_search(self, stats: list[EntryStats]) -> "_SearchBasis":
        """The entries' ids and prominences, kept while their counters are the same and within the minute."""
        now = self._clock.now()
        minute = int(now.timestamp() // PROMINENCE_KEPT_SECONDS)
        kept = self._kept_basis
        if kept is not None and kept.minute == minute and kept.stats == stats:
            return kept
        prominences = final_scores(stats, {}, {}, PROMINENCE_ONLY, now)[0]
        kept = self._kept_basis = _SearchBasis(minute, stats, prominences, set(prominences),
                                               {s.id: s for s in stats})
        return kept

    def score(self, stats: list[EntryStats], vector_scores: dict[str, float], keyword_scores: dict[str, float],
              changed_files: Sequence[str] = (), passages: Sequence[PassageSignals] = ()
              ) -> tuple[dict[str, float], Weights]:
        """Final scores by the configured ranking, and the spec weights in effect (for the diagnostic line)."""
        if self._ranking == "spec":
            return final_scores(stats, vector_scores, keyword_scores, self._weights, self._clock.now())
        used = effective_weights(self._weights, any(v > 0 for v in vector_scores.values()),
                                 any(v > 0 for v in keyword_scores.values()))
        cited = self._references.cited_files() if self._references is not None and changed_files else {}
        references = reference_scores(cited, changed_files)
        if passages:  # other projects' entries never shape a passage's normalisation either
            wanted = {s.id for s in stats}
            passages = [PassageSignals(*_only_these(wanted, p.vector, p.keyword)) for p in passages]
        return relevance_scores(stats, vector_scores, keyword_scores, references, self._clock.now(),
                                self._tuning, passages), used

    def vector_blocker(self, query: Optional[str], entries: list[EntryStats],
                       space: Optional[EmbeddingSpace] = None,
                       summary: Optional[RankingSummary] = None) -> Optional[str]:
        """Why the query cannot be compared with stored vectors, or None when it can (`space`: as in `rank`;
        `summary`: counts every entry in scope when `entries` are candidates only)."""
        if query is None:
            return "no context signals"
        if self._embedder is None or self._vector_index is None:
            return self._embedder_problem
        space = space or pinned_space(self._store)
        mine = EmbeddingSpace.of(self._embedder)
        if space is None or not has_stored_vectors(entries, summary):
            return NO_VECTORS_YET
        if space != mine:
            return f"stored vectors are {space.label}, provider is {mine.label}"
        return None

    def vector_signal(self, query: Optional[str], entries: list[EntryStats],
                      summary: Optional[RankingSummary] = None) -> tuple[dict[str, float], SignalReport]:
        """Cosine similarities of the query's vector to the stored ones, with a report of what happened."""
        blocker = self.vector_blocker(query, entries, summary=summary)
        if blocker is not None:
            return {}, SignalReport(reason=blocker)
        try:
            scores = self._vector_index.similarities(self._embedder.embed_query(query))
        except EmbeddingError as exc:
            return {}, SignalReport(reason=f"query embedding failed: {type(exc).__name__}")
        matches = sum(map((0.0).__lt__, scores.values()))
        return scores, SignalReport(ran=True, matches=matches)

    def keyword_signal(self, query: Optional[str]) -> tuple[dict[str, float], SignalReport]:
        """BM25 scores of the sanitised query from the keyword index, with a report of what happened."""
        if query is None:
            return {}, SignalReport(reason="no context signals")
        index = self._keyword_index
        if index is None or not index.keyword_search_available:
            return {}, SignalReport(reason="FTS5 unavailable")
        match = sanitise_fts_query(query)
        if match is None:
            return {}, SignalReport(reason="context has no searchable words")
        try:
            scores = index.keyword_search(match, KEYWORD_CANDIDATES)
        except DatabaseCorrupt:
            raise
        except StorageError:  # a busy database, a server's statement timeout: the other signals still rank
            return {}, SignalReport(reason=KEYWORD_SEARCH_FAILED)
        return scores, SignalReport(ran=True, matches=len(scores))


def has_stored_vectors(entries: Sequence[EntryStats], summary: Optional[RankingSummary] = None) -> bool:
    """Whether any entry in scope has a vector (`summary` counts them when `entries` are candidates only)."""
    if summary is not None:
        return summary.pending < summary.total
    return any(e.has_embedding for e in entries)


def _only_these(wanted: set[str], vector_scores: Mapping[str, float],
                keyword_scores: Mapping[str, float]) -> tuple[Mapping[str, float], Mapping[str, float]]:
    """The scores of the `wanted` entries only (the same dicts when no other entry has one)."""
    if not wanted.issuperset(vector_scores):
        vector_scores = {k: v for k, v in vector_scores.items() if k in wanted}
    if not wanted.issuperset(keyword_scores):
        keyword_scores = {k: v for k, v in keyword_scores.items() if k in wanted}
    return vector_scores, keyword_scores


def _best(scores: dict[str, float], ids: set[str], limit: int) -> list[str]:
    """The `limit` ids with the highest scores, ties by id (without sorting them all)."""
    if limit <= 0 or not ids:
        return []
    threshold = scores[heapq.nlargest(limit, ids, key=scores.__getitem__)[-1]]
    return sorted((i for i in ids if scores[i] >= threshold), key=lambda i: (-scores[i], i))[:limit]
