"""One SessionStart over fakes, for the tests of session starts: the project, its context, its bank and store."""

from __future__ import annotations

from memory_core.session.deadline import Deadline
from memory_core.entries.knowledge import KnowledgeEntry
from memory_core.entries.models import EntryDraft
from memory_core.ports.context_source import ProjectContext
from memory_core.ranking.scoring import Weights
from memory_core.embedding.space import EmbeddingSpace, pin_space
from memory_core.usecases.importing import ImportKnowledgeBank
from memory_core.usecases.retrieve import RetrieveAndRank
from memory_core.usecases.session_start import SessionRequest, SessionStart
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
                 context=CONTEXT, ranking="spec", authorship=None) -> None:
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
                                   embedder=embedder, vector_index=index, ranking=ranking,
                                   embedder_problem="memory_embedding_provider is none")
        self.use_case = SessionStart(
            store=self.store, retrieve=retrieve,
            importer=lambda: ImportKnowledgeBank(reader=self.reader, store=self.store, clock=clock,
                                                 layout=FakeProjectLayout(), authorship=authorship),
            context_source=FakeContextSource(context), shared_work=self.shared, clock=clock)

    def run(self, limit: int = 20, finish: bool = True):
        """The session start, then (as the shell does after printing) its finish with nothing shown."""
        self.deadline = Deadline.after(self.ticker, BUDGET_S)
        answer = self.use_case.run(SessionRequest(ROOT, STORE_DIR, limit), self.deadline)
        if finish:
            self.use_case.finish(answer, [])
        return answer
