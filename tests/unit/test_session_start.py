"""SessionStart under one deadline, driven by a fake ticker and deliberately slow fakes (no wall clock).

Each scenario of issue 10 is played with collaborators that advance the fake clock (a slow import, a vector
load that overruns) or never answer (a silent provider); the assertions are exact on any machine. Leases and
writes are in test_session_leases_and_writes.py, query vectors in test_session_query_vectors.py.
"""

from __future__ import annotations

import threading

import pytest

from memory_core.ports.context_source import ProjectContext
from memory_core.usecases.session_start import DEGRADED, IMPORT_RESERVE_S, OFF, SEMANTIC
from tests.fakes import FakeEmbedder, FakeTicker, FakeVectorIndex, InMemoryEntryStore
from memory_core.session.deadline import Deadline
from memory_core.usecases.session_start import SessionRequest
from tests.unit._session_harness import ROOT, STORE_DIR, Session, knowledge, stored

class BlockingEmbedder(FakeEmbedder):
    """A provider that accepts the call and never answers (until the test ends): a silent Ollama, or a model
    whose load does not finish on a busy machine."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.release = threading.Event()

    def embed_query(self, text: str) -> list[float]:
        """Block until released."""
        self.calls.append(("query", [text]))
        self.release.wait(30)
        return self._vector(text)


class SlowImportStore(InMemoryEntryStore):
    """A store whose import transactions each take `seconds` of the fake clock (a slow or busy disk)."""

    def __init__(self, ticker: FakeTicker, seconds: float) -> None:
        super().__init__()
        self.ticker = ticker
        self.seconds = seconds
        self.transactions = 0

    def import_entries(self, items, now):
        """Import, then let the fake clock run."""
        self.transactions += 1
        self.ticker.now += self.seconds
        return super().import_entries(items, now)


class SlowVectorIndex(FakeVectorIndex):
    """A vector index whose load overruns any deadline (100k vectors behind a stale cache on a busy machine)."""

    def __init__(self, store, dimensions, ticker: FakeTicker) -> None:
        super().__init__(store, dimensions)
        self.ticker = ticker
        self.cache_fresh = False

    def prepare(self, deadline=None) -> bool:
        """Spend until the deadline, then give up."""
        if deadline is not None:
            self.ticker.now = max(self.ticker.now, deadline.expires_at)
        return False


@pytest.fixture
def blocking():
    embedder = BlockingEmbedder(dimensions=32)
    yield embedder
    embedder.release.set()


def test_every_signal_in_time_gives_the_semantic_ranking():
    embedder = FakeEmbedder(dimensions=32)
    session = Session(embedder=embedder)
    stored(session.store, 30, embedder)
    session.use_case._importer = lambda: pytest.fail("an imported project is not imported again")
    session.store.set_metadata(f"imported:{ROOT}", "2026-11-01")

    answer = session.run()

    assert answer.step == SEMANTIC and answer.retrieval.vector.ran
    assert len(answer.retrieval.selected) == 20
    assert session.shared.background_runs == [], "nothing was left undone"


def test_a_provider_that_never_answers_degrades_to_keywords_at_the_deadline(blocking):
    """The Ollama port that accepts but never answers: the session decides at its deadline, from keywords and
    prominence, and says why; it never waits past the deadline and never ends empty."""
    session = Session(embedder=blocking, ticker=FakeTicker(start=100.0))  # no real grace: it never answers
    stored(session.store, 30, FakeEmbedder(dimensions=32))
    session.store.set_metadata(f"imported:{ROOT}", "2026-11-01")

    answer = session.run()

    assert answer.step == DEGRADED
    assert "not finished by the deadline" in answer.reason
    assert len(answer.retrieval.selected) == 20, "keyword + prominence still ranks every entry"
    assert answer.retrieval.keyword.ran and answer.retrieval.keyword.matches > 0
    assert session.ticker.now <= session.deadline.expires_at, "the session never waited past its deadline"
    assert len([c for c in blocking.calls if c[0] == "query"]) == 1


def test_a_first_session_whose_model_is_slow_answers_from_the_imported_bank(blocking):
    """The README demo's first run on a busy machine: the bank is imported, the model does not load in time;
    the session ranks the imported entries by keywords and prominence instead of printing nothing."""
    session = Session(embedder=blocking, bank=[knowledge(i) for i in range(12)], ticker=FakeTicker(start=100.0))

    answer = session.run()

    assert answer.import_report is not None and answer.import_report.new == 12 and answer.import_report.complete
    assert len(answer.retrieval.selected) == 12
    assert answer.step == DEGRADED and "not finished by the deadline" in answer.reason
    assert session.shared.background_runs == [ROOT], "the vectors are finished in the background"


def test_a_first_session_with_a_fast_model_embeds_its_bank_inline_and_is_semantic():
    """The README demo's first run on an idle machine: model, query and the 12 new entries fit; `active`."""
    embedder = FakeEmbedder(dimensions=32)
    session = Session(embedder=embedder, bank=[knowledge(i) for i in range(12)])

    answer = session.run()

    assert answer.step == SEMANTIC, answer.reason
    assert answer.retrieval.vector.matches == 12
    assert len(session.store.vectors_by_id) == 12, "the vectors embedded inline are kept"
    assert session.store.get_metadata("embedding_provider") == "fake", "the new database is pinned"
    assert answer.retrieval.pending_embeddings == 0


@pytest.mark.parametrize("already_stored", [0, 400], ids=["3000-entry-bank", "new-project-big-store"])
def test_a_big_first_import_stops_at_the_deadline_and_resumes(already_stored):
    """A first import that cannot finish in time commits what fits (in batches), answers from the database,
    hands the rest to the background, and the next session resumes where it stopped."""
    ticker = FakeTicker(start=100.0, real_grace_s=10.0)
    store = SlowImportStore(ticker, seconds=0.4)
    session = Session(store=store, ticker=ticker, bank=[knowledge(i) for i in range(3000)], embedder=None)
    stored(store, already_stored)

    answer = session.run()

    report = answer.import_report
    assert report is not None and not report.complete
    assert 0 < report.new < 3000 and report.new + report.remaining == 3000
    assert ticker.now <= session.deadline.expires_at - IMPORT_RESERVE_S + store.seconds, \
        "no batch starts after the import's share of the deadline"
    assert len(answer.retrieval.selected) == 20, "the session answers from what is already in the database"
    assert answer.retrieval.total == already_stored + report.new
    assert session.shared.background_runs == [ROOT]
    assert store.get_metadata(f"imported:{ROOT}") is None, "an unfinished import is not marked done"

    again = session.run()
    assert again.import_report.new > 0 and again.import_report.unchanged == report.new, "resumed, not redone"


def test_a_stale_vector_cache_that_does_not_load_in_time_degrades_and_is_rebuilt_in_the_background():
    ticker = FakeTicker(start=100.0, real_grace_s=10.0)
    embedder = FakeEmbedder(dimensions=32)
    store = InMemoryEntryStore()
    stored(store, 40, embedder)
    store.set_metadata(f"imported:{ROOT}", "x")
    session = Session(store=store, embedder=embedder, ticker=ticker,
                      index=SlowVectorIndex(store, 32, ticker))

    answer = session.run()

    assert answer.step == DEGRADED and "not loaded by the deadline" in answer.reason
    assert len(answer.retrieval.selected) == 20
    assert ticker.now <= session.deadline.expires_at
    assert session.shared.background_runs == [ROOT], "the cache is rebuilt by the background run"


def test_no_context_signals_ranks_by_prominence_without_loading_the_model():
    embedder = FakeEmbedder(dimensions=32)
    session = Session(embedder=embedder, context=ProjectContext())
    stored(session.store, 30, embedder)
    session.store.set_metadata(f"imported:{ROOT}", "x")

    answer = session.run()

    assert answer.step == OFF and answer.reason == "no context signals"
    assert embedder.calls == [] and len(answer.retrieval.selected) == 20


def test_after_a_late_query_the_background_run_caches_it_and_the_next_session_needs_no_model(blocking):
    """A machine too busy to load the model in time: the session degrades and hands the query to the background
    run, which embeds it; the next session of the same context ranks by meaning without the model."""
    session = Session(embedder=blocking, ticker=FakeTicker(start=100.0))
    stored(session.store, 30, FakeEmbedder(dimensions=32))
    session.store.set_metadata(f"imported:{ROOT}", "x")

    late = session.run()
    assert late.step == DEGRADED and session.shared.background_runs == [ROOT]

    background = Session(store=session.store, embedder=FakeEmbedder(dimensions=32))
    assert background.use_case.warm_query_vector(ROOT) is True
    assert background.use_case.warm_query_vector(ROOT) is False, "already cached: nothing to do"
    calls_before = len(blocking.calls)
    following = Session(store=session.store, embedder=blocking, ticker=FakeTicker(start=100.0))
    answer = following.run()

    assert answer.step == SEMANTIC
    assert len(blocking.calls) == calls_before, "the model was not asked again"


def test_a_failing_import_leaves_no_worker_thread_behind():
    embedder = BlockingEmbedder(dimensions=32)
    session = Session(embedder=embedder, bank=[knowledge(i) for i in range(3)], ticker=FakeTicker(start=100.0))

    def broken_import():
        raise OSError("disk went away")

    session.use_case._importer = broken_import  # noqa: SLF001
    try:
        with pytest.raises(OSError):
            session.run(finish=False)
        worker_threads = [t for t in threading.enumerate() if t.name == "iflow-memory-embed"]
        embedder.release.set()
        for thread in worker_threads:
            thread.join(5)
        assert not any(t.is_alive() for t in worker_threads), "the worker ends once its current call returns"
    finally:
        embedder.release.set()


class QueryOnlyEmbedder(FakeEmbedder):
    """A model that answers the session's query but whose document batches do not come through in the session."""

    def embed_documents(self, texts):
        """Fail: the session gets no inline vectors."""
        self.calls.append(("documents", list(texts)))
        raise RuntimeError("documents not embedded in this session")


def test_a_fresh_store_whose_entries_got_no_vector_hands_them_to_the_background_run():
    """Issue 21: a new store (no space pinned yet) whose first session embedded no entry inline stayed `off`
    run after run, because entries without a vector counted only once a space was pinned."""
    session = Session(embedder=QueryOnlyEmbedder(dimensions=32), bank=[knowledge(i) for i in range(12)])

    answer = session.run()

    assert answer.step == OFF and answer.reason == "no entry has a vector yet"
    assert session.store.get_metadata("embedding_provider") is None, "no space is pinned yet"
    assert session.shared.background_runs == [ROOT], "the 12 entries without a vector go to the background run"


def test_the_import_tells_the_watchdog_which_batch_is_being_committed():
    """The hook's watchdog lets a batch being committed finish: the session reports its stage and each batch."""
    from memory_core.session.progress import IMPORTING, WRITING, SessionProgress

    ticker = FakeTicker(start=100.0, real_grace_s=10.0)
    progress = SessionProgress()
    seen = []

    class WatchedStore(SlowImportStore):
        def import_entries(self, items, now):
            seen.append(progress.snapshot())
            return super().import_entries(items, now)

    store = WatchedStore(ticker, seconds=0.4)
    session = Session(store=store, ticker=ticker, bank=[knowledge(i) for i in range(250)])
    session.deadline = deadline = Deadline.after(ticker, 2.0)

    answer = session.use_case.run(SessionRequest(ROOT, STORE_DIR, 20), deadline, progress)

    assert seen[0] == (IMPORTING, 0, 100), "the first batch is announced before it is written"
    assert len(progress.sources) == 250, "a markdown fallback reuses what the import parsed"
    assert progress.snapshot().committed == answer.import_report.new and progress.batch_done.is_set()
    session.use_case.finish(answer, [])
    assert progress.snapshot().stage == WRITING


def test_a_resumed_import_of_a_big_bank_commits_its_next_batch_within_the_deadline():
    """Issue 21: a 3,000-entry bank stopped at 1,000 entries, and later sessions never got further: before their
    first batch they read back every stored entry in full (re-checked for secrets, ~0.5 ms each), which on a
    busy laptop took the whole deadline, and the watchdog ended them. The import compares stored entries by
    their cheap import state, so the next batch comes well before the deadline and the session says so."""
    from memory_core.ports.entry_store import StoredState

    ticker = FakeTicker(start=100.0, real_grace_s=10.0)

    class BusyStore(SlowImportStore):
        """Whole entries cost 2 ms each to read back; their import states are one cheap query."""

        def get_many(self, entry_ids):
            self.ticker.now += 0.002 * len(entry_ids)
            return super().get_many(entry_ids)

        def import_states(self, entry_ids):
            return [StoredState(e.id, e.observation_count, bool(e.keywords), e.scope)
                    for e in InMemoryEntryStore.get_many(self, entry_ids)]

    store = BusyStore(ticker, seconds=0.1)
    session = Session(store=store, ticker=ticker, bank=[knowledge(i) for i in range(3000)])
    first = session.run()
    while store.count() < 1000:  # earlier sessions got this far
        session.run()
    before = store.count()

    later = session.run()

    report = later.import_report
    assert report.new >= 100 and store.count() == before + report.new
    assert ticker.now <= session.deadline.expires_at, "the batch came before the deadline"
    assert report.remaining == 3000 - store.count() and later.retrieval.total == store.count()
    assert first.import_report.remaining > report.remaining
