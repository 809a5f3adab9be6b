"""SessionStart under one deadline, driven by a fake ticker and deliberately slow fakes (no wall clock).

Each scenario of issue 10 is played with collaborators that advance the fake clock (a slow import, a vector
load that overruns) or never answer (a silent provider); the assertions are exact on any machine.
"""

from __future__ import annotations

import threading

import pytest

from memory_core.deadline import Deadline
from memory_core.knowledge import KnowledgeEntry
from memory_core.models import EntryDraft
from memory_core.ports.context_source import ProjectContext
from memory_core.ports.shared_work import IMPORT_TASK, VECTORS_TASK
from memory_core.scoring import Weights
from memory_core.space import EmbeddingSpace, pin_space
from memory_core.usecases.importing import ImportKnowledgeBank
from memory_core.usecases.retrieve import RetrieveAndRank
from memory_core.usecases.session_start import (
    DEGRADED, IMPORT_RESERVE_S, OFF, SEMANTIC, SessionRequest, SessionStart,
)
from tests.fakes import (
    FakeClock, FakeContextSource, FakeEmbedder, FakeKnowledgeBankReader, FakeProjectLayout, FakeSharedWork,
    FakeTicker, FakeVectorIndex, InMemoryEntryStore, T0,
)

ROOT = "/work/projects/csv-app"
STORE_DIR = "/home/me/.claude/iflow/memory"
BANK = f"{ROOT}/docs/knowledge-bank"
BUDGET_S = 2.0
CATS = ("anti-patterns", "heuristics", "patterns")
CONTEXT = ProjectContext(feature_slug="csv-importer", feature_description="Parse uploaded CSV files with quoting",
                         phase="design", changed_files=["src/csv_reader.py"])


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


def knowledge(i: int, topic: str = "csv") -> KnowledgeEntry:
    name = f"{topic.title()} lesson {i}"
    description = f"{topic} note {i}: quote fields that contain delimiters, parse line by line, report the line."
    return KnowledgeEntry(name=name, category=CATS[i % 3], description=description,
                          raw_text=f"### {name}\n{description}", observation_count=1 + i % 3, position=i)


def stored(store: InMemoryEntryStore, count: int, embedder: FakeEmbedder = None, topic: str = "deploy") -> None:
    """`count` entries already in the store (with vectors in the embedder's space when one is given)."""
    for i in range(count):
        draft = EntryDraft(name=f"{topic} entry {i}", description=f"{topic} fact {i} about rollouts and csv parsing",
                           category=CATS[i % 3])
        entry_id = store.upsert(draft, T0).entry_id
        if embedder is not None:
            store.set_vector(entry_id, embedder.embed_documents([draft.description])[0])
    if embedder is not None:
        pin_space(store, EmbeddingSpace.of(embedder))
        embedder.calls.clear()


class Session:
    """One SessionStart over fakes, with the pieces a test looks at afterwards."""

    def __init__(self, store=None, embedder=None, bank=(), index=None, held_elsewhere=(), ticker=None,
                 context=CONTEXT, ranking="spec") -> None:
        self.ticker = ticker or FakeTicker(start=100.0, real_grace_s=10.0)
        self.store = store if store is not None else InMemoryEntryStore()
        self.embedder = embedder
        self.shared = FakeSharedWork(held_elsewhere)
        self.reader = FakeKnowledgeBankReader({BANK: list(bank)})
        clock = FakeClock()
        if index is None and embedder is not None:
            index = FakeVectorIndex(self.store, embedder.dimensions)
        self.index = index
        retrieve = RetrieveAndRank(store=self.store, clock=clock, weights=Weights(), keyword_index=self.store,
                                   embedder=embedder, vector_index=index, ranking=ranking)
        self.use_case = SessionStart(
            store=self.store, retrieve=retrieve,
            importer=lambda: ImportKnowledgeBank(reader=self.reader, store=self.store, clock=clock,
                                                 layout=FakeProjectLayout()),
            context_source=FakeContextSource(context), shared_work=self.shared, clock=clock,
            embedder=embedder, vector_index=index,
            embedder_problem="memory_embedding_provider is none")

    def run(self, limit: int = 20, finish: bool = True):
        """The session start, then (as the shell does after printing) its finish with nothing shown."""
        self.deadline = Deadline.after(self.ticker, BUDGET_S)
        answer = self.use_case.run(SessionRequest(ROOT, STORE_DIR, limit), self.deadline)
        if finish:
            self.use_case.finish(answer, [])
        return answer


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


def test_a_session_does_not_import_while_another_process_holds_the_import_lease():
    session = Session(bank=[knowledge(i) for i in range(50)], held_elsewhere=[IMPORT_TASK])
    stored(session.store, 10)

    answer = session.run()

    assert answer.import_elsewhere and answer.import_report is None
    assert session.store.count() == 10, "the other process imports; this one only reads"
    assert len(answer.retrieval.selected) == 10


def test_only_the_lease_holder_embeds_pending_entries_inline():
    embedder = FakeEmbedder(dimensions=32)
    leader = Session(embedder=embedder, bank=[knowledge(i) for i in range(12)])
    follower = Session(store=leader.store, embedder=embedder, held_elsewhere=[VECTORS_TASK])
    follower.store.set_metadata(f"imported:{ROOT}", "x")

    follower.run()
    assert not [c for c in embedder.calls if c[0] == "documents"], "a session without the lease embeds no entry"

    embedder.calls.clear()
    leader.store.metadata.pop(f"imported:{ROOT}")
    leader.run()
    assert [c for c in embedder.calls if c[0] == "documents"], "the lease holder embeds them"


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


def test_an_unchanged_context_reuses_the_query_vector_and_never_calls_the_model():
    embedder = FakeEmbedder(dimensions=32)
    session = Session(embedder=embedder)
    stored(session.store, 30, embedder)
    session.store.set_metadata(f"imported:{ROOT}", "x")

    first = session.run()
    assert [c[0] for c in embedder.calls] == ["query"]
    second = session.run()

    assert [c[0] for c in embedder.calls] == ["query"], "the second session did not embed the query again"
    assert second.step == SEMANTIC
    assert [r.entry.id for r in second.retrieval.selected] == [r.entry.id for r in first.retrieval.selected]

    changed = Session(store=session.store, embedder=embedder,
                      context=ProjectContext(feature_slug="release-pipeline", changed_files=["deploy.sh"]))
    changed.run()
    assert [c[0] for c in embedder.calls] == ["query", "query"], "a new context needs the model"


def test_a_cached_query_vector_of_another_space_is_never_used():
    old = FakeEmbedder(dimensions=32, model_name="old-model")
    session = Session(embedder=old)
    stored(session.store, 10, old)
    session.store.set_metadata(f"imported:{ROOT}", "x")
    session.run()

    new = FakeEmbedder(dimensions=32, model_name="new-model")
    for entry_id in list(session.store.vectors_by_id):
        session.store.set_vector(entry_id, [1.0] + [0.0] * 31)
    pin_space(session.store, EmbeddingSpace.of(new))
    switched = Session(store=session.store, embedder=new)
    answer = switched.run()

    assert [c[0] for c in new.calls] == ["query"], "the new space's query is embedded, not taken from the cache"
    assert answer.step == SEMANTIC


def test_no_context_signals_ranks_by_prominence_without_loading_the_model():
    embedder = FakeEmbedder(dimensions=32)
    session = Session(embedder=embedder, context=ProjectContext())
    stored(session.store, 30, embedder)
    session.store.set_metadata(f"imported:{ROOT}", "x")

    answer = session.run()

    assert answer.step == OFF and answer.reason == "no context signals"
    assert embedder.calls == [] and len(answer.retrieval.selected) == 20


def test_recalls_are_counted_once_for_the_entries_shown():
    embedder = FakeEmbedder(dimensions=32)
    session = Session(embedder=embedder)
    stored(session.store, 30, embedder)
    session.store.set_metadata(f"imported:{ROOT}", "x")
    answer = session.run(limit=10, finish=False)
    shown = [r.entry.id for r in answer.retrieval.selected][:7]  # e.g. three dropped by the size budget

    assert sum(e.recall_count for e in session.store.entries.values()) == 0, "ranking alone counts nothing"
    session.use_case.finish(answer, shown)

    counts = {i: e.recall_count for i, e in session.store.entries.items()}
    assert sum(counts.values()) == 7 and all(counts[i] == 1 for i in shown)


def test_every_lease_is_given_back():
    embedder = FakeEmbedder(dimensions=32)
    session = Session(embedder=embedder, bank=[knowledge(i) for i in range(12)])

    session.run(finish=False)

    assert session.shared.held == set(), "given back before the block is printed"
    assert any(c.startswith(IMPORT_TASK) for c in session.shared.claims) and VECTORS_TASK in session.shared.claims


def test_fresh_vectors_score_like_stored_ones():
    """Entries embedded inline during a session are compared with the query as the stored ones are later."""
    embedder = FakeEmbedder(dimensions=32)
    session = Session(embedder=embedder, bank=[knowledge(i) for i in range(6)])
    inline = session.run()
    later = session.run()  # the same entries, now read back from the store's vectors

    assert inline.step == later.step == SEMANTIC
    assert {r.entry.id: round(r.score, 5) for r in inline.retrieval.selected} == \
        {r.entry.id: round(r.score, 5) for r in later.retrieval.selected}


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


def test_nothing_is_written_before_the_block_is_printed():
    """Between deciding and printing the session writes nothing (a busy database could hold the print up):
    inline vectors, the new database's pin and the query vector are kept by `finish`, after printing."""
    embedder = FakeEmbedder(dimensions=32)
    session = Session(embedder=embedder, bank=[knowledge(i) for i in range(12)])

    answer = session.run(finish=False)

    assert answer.step == SEMANTIC and answer.retrieval.model == "fake-bow"
    assert session.store.vectors_by_id == {} and session.store.get_metadata("embedding_provider") is None
    assert session.store.query_vectors == {}
    session.use_case.finish(answer, [])
    assert len(session.store.vectors_by_id) == 12 and session.store.get_metadata("embedding_provider") == "fake"
    assert len(session.store.query_vectors) == 1


def test_inline_vectors_are_not_stored_into_a_space_pinned_meanwhile():
    embedder = FakeEmbedder(dimensions=32)
    session = Session(embedder=embedder, bank=[knowledge(i) for i in range(12)])
    answer = session.run(finish=False)
    other = FakeEmbedder(dimensions=32, model_name="other-model")
    pin_space(session.store, EmbeddingSpace.of(other))  # a re-embed or another writer pinned first

    session.use_case.finish(answer, [])

    assert session.store.vectors_by_id == {} and session.store.query_vectors == {}


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
