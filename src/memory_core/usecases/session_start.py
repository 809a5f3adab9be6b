"""Session start: the one use case behind the hook, `iflow-memory inject` and the injector.

One deadline bounds every stage. The stages run in an order that always keeps an answer ready: the slow
query embedding starts first on the one worker thread, the database's keyword + prominence ranking is
computed while it runs, and the session waits for the model (or a provider, or a big vector load) only
until the deadline. What did not finish is left out, named in the answer, and finished in the background
by one process. Nothing is written to the database between the decision and the printing: the writes a
session owes (recalls, vectors embedded inline, its query vector) follow in `finish`, after the block is out.
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Callable, Optional, Sequence

from memory_core.ranking.context_query import compose_context_query, query_passages
from memory_core.session.deadline import Deadline
from memory_core.embedding.normalising import document_text
from memory_core.embedding.worker import EmbeddingWorker
from memory_core.errors import DatabaseCorrupt, StorageError
from memory_core.ports.candidate_source import RankingSummary
from memory_core.ports.clock import Clock
from memory_core.ports.context_source import ProjectContextSource
from memory_core.ports.entry_store import BatchVectorStore
from memory_core.ports.query_vector_cache import QueryVectorCache
from memory_core.ports.shared_work import IMPORT_TASK, VECTORS_TASK, SharedWork
from memory_core.ports.vector_index import PreparableVectorIndex
from memory_core.entries.records import EntryStats
from memory_core.session.progress import CONTEXT, IMPORTING, RANKING, VECTORS, WRITING, SessionProgress
from memory_core.embedding.space import EmbeddingSpace, pin_space, pinned_space
from memory_core.policies.first_import import is_imported
from memory_core.ranking.relevance_fusion import PassageSignals
from memory_core.usecases.retrieve import (
    NO_VECTORS_YET, Retrieval, RetrieveAndRank, SignalReport, has_stored_vectors,
)
from memory_core.anchors.marks import AnchorMarks

if TYPE_CHECKING:  # the importer (and pydantic behind it) loads only for a project's first sessions
    from memory_core.usecases.check_anchors import CheckAnchors
    from memory_core.usecases.importing import ImportKnowledgeBank, ImportReport

RANK_RESERVE_S = 0.25
"""Kept free after the last wait: scoring, selection, rendering and printing."""
PASSAGE_RANK_S_PER_ENTRY = 3e-6
"""More reserve per entry when the `relevance` ranking scores passages (about 3x the spec's scoring work:
0.3 s at 100k entries on the development machine)."""
IMPORT_RESERVE_S = 0.8
"""A first-run import stops this long before the deadline, so the ranking still runs."""
INLINE_DOCUMENTS = 64
"""Entries without a vector that a session embeds itself when it loads the model anyway."""
INLINE_EMBED_WAIT_S = 0.6
"""How long a session waits for those once its query vector is ready."""
CHECK_RESERVE_S = 0.08
"""Kept free after the anchor check: rendering and printing the block."""
MIN_CHECK_S = 0.02
"""Less time than this left for the anchor check: it is skipped (and the diagnostic line says so)."""

from memory_core.usecases.session_records import (  # noqa: E402 - re-exported: callers import them from here
    DEGRADED, OFF, SEMANTIC, SessionAnswer, SessionRequest, VectorWork as _VectorWork,
)


class SessionStart:
    """Answers a session start within a deadline with the best ranking it can finish."""

    def __init__(self, store, retrieve: RetrieveAndRank, importer: Callable[[], "ImportKnowledgeBank"],
                 context_source: ProjectContextSource, shared_work: SharedWork, clock: Clock,
                 anchor_checks: Optional[Callable[[str], "CheckAnchors"]] = None) -> None:
        self._store = store
        self._anchor_checks = anchor_checks  # project root → the check of that tree (ADR 26)
        self._retrieve = retrieve
        self._importer = importer
        self._context_source = context_source
        self._shared = shared_work
        self._clock = clock
        # The query embedder, its index and why there is none: the retrieval's, so the two never disagree.
        self._embedder = retrieve.embedder
        self._index = retrieve.vector_index
        self._embedder_problem = retrieve.embedder_problem
        self._held: list[str] = []
        self._worker: Optional[EmbeddingWorker] = None
        self._progress = SessionProgress()

    def run(self, request: SessionRequest, deadline: Deadline,
            progress: Optional[SessionProgress] = None) -> SessionAnswer:
        """Import what fits and rank by every signal that finishes before the deadline. Call `finish` after
        printing the answer (or after deciding not to). `progress` is kept told of the stage (for a watchdog)."""
        self._progress = progress or SessionProgress()
        try:
            return self._run(request, deadline)
        finally:
            if self._worker is not None:
                self._worker.stop()  # whatever happened, the thread ends after its current call
                self._worker = None
            for task in self._held:
                self._shared.release(task)
            self._held = []

    def finish(self, answer: SessionAnswer, shown_ids: Sequence[str]) -> None:
        """After the block is out: count recalls for exactly the entries shown, keep what the session computed
        (its inline vectors, its query vector) and start the background run for what it left. A busy database
        skips the optional writes rather than holding the session up; recalls raise StorageError to the caller."""
        self._progress.enter(WRITING)
        if shown_ids:
            self._store.record_recall(list(shown_ids), self._clock.now())
        work = answer.owed or _VectorWork()
        try:
            if work.fresh:
                self._store_fresh(work)
            if work.query_vector is not None and not work.cached and answer.query is not None:
                self._remember_query(answer.query, work.query_vector)
            for passage, vector in work.passage_vectors.items():
                if passage not in work.cached_passages:
                    self._remember_query(passage, vector)
        except StorageError:
            pass  # used for this session all the same; the background run redoes it
        answer.background = self._hand_over(answer, work)

    def warm_query_vector(self, project_root: str) -> bool:
        """Embed and remember the project's current context query (the background run does this after a
        session whose model did not load in time, so the next session of that context needs no model)."""
        context = self._context_source.collect(project_root)
        query = compose_context_query(context)
        space = pinned_space(self._store)
        if (query is None or self._embedder is None or space is None or space != EmbeddingSpace.of(self._embedder)
                or not isinstance(self._store, QueryVectorCache)):
            return False
        texts = [query, *(query_passages(context) if self._retrieve.uses_passages else [])]
        missing = [t for t in dict.fromkeys(texts) if self._store.cached_query_vector(space.label, t) is None]
        for text in missing:
            self._store.cache_query_vector(space.label, text, self._embedder.embed_query(text))
        return bool(missing)

    # -- the stages, in order ------------------------------------------------------------------------------------
    def _run(self, request: SessionRequest, deadline: Deadline) -> SessionAnswer:
        self._progress.enter(CONTEXT)
        context = self._context_source.collect(request.project_root, deadline)
        query = compose_context_query(context)
        space = pinned_space(self._store)
        work = _VectorWork(passages=query_passages(context) if self._retrieve.uses_passages else [])
        self._worker = self._start_query(query, space, work)
        import_report, status = self._first_import(request, deadline.earlier(IMPORT_RESERVE_S))
        self._progress.enter(RANKING)
        if self._worker is not None:
            self._queue_pending(self._worker)
        stats, summary = self._retrieve.basis(request.scopes, request.limit)
        keywords = self._retrieve.keyword_signal(query)
        reserve = RANK_RESERVE_S + (len(stats) * PASSAGE_RANK_S_PER_ENTRY if work.passages else 0.0)
        decide_by = deadline.earlier(reserve)
        self._progress.enter(VECTORS)
        work.index_ready = self._prepare_index(query, stats, space, decide_by, summary)
        if self._worker is not None:
            self._collect(self._worker, work, decide_by)
        stored = has_stored_vectors(stats, summary)  # before this session's inline vectors join them
        if work.fresh:
            fresh_ids = {entry_id for entry_id, _ in work.fresh}
            stats = [s._replace(has_embedding=True) if s.id in fresh_ids else s for s in stats]
            if summary is not None:
                summary = summary._replace(pending=max(summary.pending - len(fresh_ids), 0))
            if space is None:
                work.pin = EmbeddingSpace.of(self._embedder)
        scoring_space = space or work.pin
        self._progress.enter(RANKING)
        vectors = self._vector_signal(query, stats, work, scoring_space, summary, stored)
        passages = self._passage_signals(work, vectors[1].ran, stored)
        stats = self._retrieve.with_found(stats, summary, request.scopes, vectors[0], keywords[0], *passages)
        retrieval = self._retrieve.rank(query, stats, vectors, keywords, request.limit, space=scoring_space,
                                        changed_files=context.changed_files, passages=passages, summary=summary)
        marks = self._mark(request, retrieval, deadline)
        unembedded = summary.pending if summary is not None else sum(1 for s in stats if not s.has_embedding)
        return SessionAnswer(retrieval=retrieval, step=self._step(vectors[1], work), import_report=import_report,
                             import_elsewhere=status == "elsewhere", import_deferred=status == "deferred",
                             owed=work, query=query, project_root=request.project_root, unembedded=unembedded,
                             marks=marks)

    def _mark(self, request: SessionRequest, retrieval: Retrieval, deadline: Deadline) -> AnchorMarks:
        """Check the selected entries' citations of this project against its tree in the time left, and rank
        the ones citing only missing files after the others (ADR 26)."""
        if self._anchor_checks is None or not request.scopes or not any(r.entry.anchors for r in retrieval.selected):
            return AnchorMarks()
        from memory_core.usecases.check_anchors import check_before_use, lowered_last

        marks = check_before_use(self._anchor_checks(request.project_root), [r.entry for r in retrieval.selected],
                                 request.scopes[0], deadline, CHECK_RESERVE_S, MIN_CHECK_S)
        retrieval.selected = lowered_last(retrieval.selected, marks)
        return marks

    def _claim(self, task: str) -> bool:
        if self._shared.claim(task):
            self._held.append(task)
            return True
        return False

    def _release(self, task: str) -> None:
        if task in self._held:
            self._held.remove(task)
            self._shared.release(task)

    def _start_query(self, query: Optional[str], space: Optional[EmbeddingSpace],
                     work: _VectorWork) -> Optional[EmbeddingWorker]:
        """Use the cached query vector, or start embedding the query on the worker thread right away."""
        if query is None or self._embedder is None:
            return None
        mine = EmbeddingSpace.of(self._embedder)
        if space is not None and space != mine:
            return None  # the stored vectors are of another space: nothing to compare a query with
        if isinstance(self._store, QueryVectorCache) and space is not None:
            for text in [query, *work.passages]:
                try:
                    cached = self._store.cached_query_vector(space.label, text)
                except StorageError:
                    cached = None
                if cached is None or len(cached) != mine.dimensions:
                    continue
                if text == query:
                    work.query_vector, work.cached = cached, True
                else:
                    work.passage_vectors[text] = cached
                    work.cached_passages.add(text)
        missing = [p for p in work.passages if p not in work.passage_vectors]
        if work.cached and not missing:
            return None
        worker = EmbeddingWorker(self._embedder)
        worker.start(None if work.cached else query, missing)
        return worker

    def _first_import(self, request: SessionRequest, deadline: Deadline) -> tuple[Optional["ImportReport"], str]:
        """The first session of a project imports its markdown: what fits now, the rest in the background.
        Returns the report and `done`, `elsewhere` (another process imports it) or `deferred` (busy)."""
        if is_imported(self._store, request.project_root):
            return None, "done"
        task = f"{IMPORT_TASK}:{os.path.abspath(request.project_root)}"
        if not self._claim(task):
            return None, "elsewhere"
        self._progress.enter(IMPORTING)
        try:
            importer = self._importer()
            return importer.run(request.project_root, request.global_store, deadline=deadline,
                                progress=self._progress), "done"
        except DatabaseCorrupt:
            raise
        except StorageError:
            return None, "deferred"  # reading still works; the background run imports it
        finally:
            self._release(task)

    def _queue_pending(self, worker: EmbeddingWorker) -> None:
        """The model is loading anyway: embed a few entries that have no vector yet (one session at a time)."""
        if not self._claim(VECTORS_TASK):
            worker.close()
            return
        try:
            ids = self._store.pending_ids(INLINE_DOCUMENTS)
            entries = self._store.get_many(ids) if ids else []
            worker.add_documents([(e.id, document_text(e.name, e.description, e.reasoning, e.keywords))
                                  for e in entries])
        finally:
            worker.close()

    def _prepare_index(self, query: Optional[str], stats: list[EntryStats], space: Optional[EmbeddingSpace],
                       decide_by: Deadline, summary: Optional[RankingSummary] = None) -> bool:
        """Load the stored vectors while the worker embeds, unless nothing could be compared with them."""
        if self._index is None:
            return False
        blocker = self._retrieve.vector_blocker(query, stats, space, summary)
        if blocker == NO_VECTORS_YET:
            return True  # nothing stored to load; vectors embedded inline are compared directly
        if blocker is not None or not isinstance(self._index, PreparableVectorIndex):
            return blocker is None
        return self._index.prepare(decide_by)

    def _collect(self, worker: EmbeddingWorker, work: _VectorWork, decide_by: Deadline) -> None:
        """Wait for the query vector until the deadline, then for the passages' (what is there by the deadline
        counts), then briefly for the inline documents."""
        if not work.cached:
            if not decide_by.wait(worker.query_done):
                name = getattr(self._embedder, "provider_name", "embedding")
                work.failure = f"query embedding ({name}) not finished by the deadline"
                return
            if worker.query_vector is None:
                work.failure = f"query embedding failed: {type(worker.error).__name__}"
                return
            work.query_vector = worker.query_vector
        if work.passages:
            decide_by.wait(worker.passages_done)
            work.passage_vectors.update(worker.passage_vectors())
        soon = Deadline(decide_by.ticker, min(decide_by.expires_at, decide_by.ticker.monotonic() + INLINE_EMBED_WAIT_S))
        soon.wait(worker.documents_done)
        worker.stop()
        work.fresh = worker.take_embedded()

    def _vector_signal(self, query: Optional[str], stats: list[EntryStats], work: _VectorWork,
                       space: Optional[EmbeddingSpace], summary: Optional[RankingSummary],
                       stored: bool) -> tuple[dict[str, float], SignalReport]:
        """The query's similarities to the stored vectors (when any were stored before this session) and to the
        vectors embedded inline, or why there are none."""
        blocker = self._retrieve.vector_blocker(query, stats, space, summary)
        if blocker == NO_VECTORS_YET and work.failure:
            blocker = work.failure  # the vectors being embedded inline did not come in time
        if blocker is not None or self._index is None:
            return {}, SignalReport(reason=blocker or self._embedder_problem)
        if work.query_vector is None:
            return {}, SignalReport(reason=work.failure or "no query vector")
        if not work.index_ready:
            return {}, SignalReport(reason="stored vectors not loaded by the deadline (vector cache rebuilding)")
        scores = self._index.similarities(work.query_vector) if stored else {}
        for entry_id, vector in work.fresh:
            scores[entry_id] = math.fsum(a * b for a, b in zip(work.query_vector, vector))
        return scores, SignalReport(ran=True, matches=sum(1 for s in scores.values() if s > 0))

    def _passage_signals(self, work: _VectorWork, vectors_ran: bool, stored: bool) -> list[PassageSignals]:
        """Each passage's keyword scores, and its vector scores when the whole query's vector signal ran and
        the passage's vector came in time (a late passage counts by its keywords alone)."""
        found = []
        compare = vectors_ran and self._index is not None
        fresh = work.fresh
        for passage in work.passages:
            vector = work.passage_vectors.get(passage) if compare else None
            scores: dict[str, float] = {}
            if vector is not None:
                scores = self._index.similarities(vector) if stored else {}
                for entry_id, document in fresh:
                    scores[entry_id] = math.fsum(a * b for a, b in zip(vector, document))
            found.append(PassageSignals(scores, self._retrieve.keyword_signal(passage)[0]))
        return found

    def _step(self, report: SignalReport, work: _VectorWork) -> str:
        if report.ran:
            return SEMANTIC
        slow = work.failure or (self._index is not None and work.query_vector is not None and not work.index_ready)
        return DEGRADED if slow else OFF

    def _mine_is_pinned(self) -> Optional[EmbeddingSpace]:
        """The embedder's space when the database is pinned to exactly that space (checked now, not earlier)."""
        if self._embedder is None:
            return None
        mine = EmbeddingSpace.of(self._embedder)
        return mine if pinned_space(self._store) == mine else None

    def _store_fresh(self, work: _VectorWork) -> None:
        """Keep the vectors embedded inline, pinning a new database first; never into another space."""
        if work.pin is not None and pinned_space(self._store) is None:
            pin_space(self._store, work.pin)
        if self._mine_is_pinned() is None:
            return  # the database was pinned elsewhere meanwhile (a re-embed, another writer)
        if isinstance(self._store, BatchVectorStore):
            self._store.set_vectors(work.fresh)
        else:
            for entry_id, vector in work.fresh:
                self._store.set_vector(entry_id, vector)

    def _remember_query(self, query: str, vector: list[float]) -> None:
        space = self._mine_is_pinned()
        if space is not None and isinstance(self._store, QueryVectorCache):
            self._store.cache_query_vector(space.label, query, vector)

    def _hand_over(self, answer: SessionAnswer, work: _VectorWork) -> bool:
        """Start the background run when this session left work undone (and nobody is doing it already)."""
        # Entries without a vector are owed to the background run even before any space is pinned: a fresh
        # store whose first sessions were too slow to embed inline must not stay `off` run after run.
        pending = answer.unembedded > 0 and self._embedder is not None
        stale = bool(work.fresh) or (self._index is not None and not getattr(self._index, "cache_fresh", True))
        late_query = bool(work.failure) and work.query_vector is None  # the background run embeds it for next time
        late_query = late_query or (work.query_vector is not None
                                    and any(p not in work.passage_vectors for p in work.passages))
        if not (answer.import_unfinished or answer.bank_undecided or pending or stale or late_query):
            return False
        return self._shared.finish_in_background(answer.project_root)
