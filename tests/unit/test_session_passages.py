"""The `relevance` ranking at session start: the feature's passages are embedded after the whole query, cached
like it, bounded by the same deadline, and a late passage still counts by its keywords."""

from __future__ import annotations

import threading

from memory_core.ranking.context_query import compose_context_query, query_passages
from memory_core.ports.context_source import ProjectContext
from memory_core.usecases.session_start import SEMANTIC
from tests.fakes import FakeEmbedder, FakeTicker
from tests.unit._session_harness import ROOT, Session, stored

SPEC = ("Import CSV files uploaded by users. Quote fields that contain the delimiter; report the line of "
        "every malformed row. Retry a failed upload once")
CONTEXT = ProjectContext(feature_slug="042-csv-importer", feature_description=SPEC, phase="implement",
                         changed_files=["src/csv_reader.py"])


class PassageBlockingEmbedder(FakeEmbedder):
    """Answers the whole query at once and blocks on every other text: a provider that slows down mid-session."""

    def __init__(self, whole: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.whole = whole
        self.release = threading.Event()

    def embed_query(self, text: str) -> list[float]:
        """Block on anything but the whole query until released."""
        if text != self.whole:
            self.calls.append(("query", [text]))
            self.release.wait(30)
            return self._vector(text)
        return super().embed_query(text)


def imported(session: Session) -> Session:
    session.store.set_metadata(f"imported:{ROOT}", "x")
    return session


def queries(embedder: FakeEmbedder) -> list[str]:
    return [texts[0] for kind, texts in embedder.calls if kind == "query"]


def test_passages_are_the_feature_clauses_without_phase_or_files():
    passages = query_passages(CONTEXT)
    assert passages[0] == "csv importer"
    assert "Quote fields that contain the delimiter;" in passages
    assert not any("implement" in p or "csv_reader" in p for p in passages)


def test_a_relevance_session_embeds_the_query_then_each_passage_and_caches_them_all():
    embedder = FakeEmbedder(dimensions=32)
    session = imported(Session(embedder=embedder, context=CONTEXT, ranking="relevance"))
    stored(session.store, 30, embedder)

    first = session.run()
    asked = queries(embedder)
    assert first.step == SEMANTIC
    assert asked[0] == first.query and asked[1:] == query_passages(CONTEXT)

    second = session.run()
    assert queries(embedder) == asked, "an unchanged context needs the model for none of its texts"
    assert [r.entry.id for r in second.retrieval.selected] == [r.entry.id for r in first.retrieval.selected]


def test_the_spec_ranking_embeds_only_the_whole_query():
    embedder = FakeEmbedder(dimensions=32)
    session = imported(Session(embedder=embedder, context=CONTEXT))
    stored(session.store, 30, embedder)
    answer = session.run()
    assert queries(embedder) == [answer.query]


def test_late_passages_count_by_keywords_and_are_embedded_in_the_background():
    embedder = PassageBlockingEmbedder(compose_context_query(CONTEXT), dimensions=32)
    session = imported(Session(embedder=embedder, context=CONTEXT, ranking="relevance",
                               ticker=FakeTicker(start=100.0)))
    stored(session.store, 30, FakeEmbedder(dimensions=32))
    try:
        answer = session.run()
        assert answer.step == SEMANTIC, "the whole query's vector came in time"
        assert len(answer.retrieval.selected) == 20
        assert session.ticker.now <= session.deadline.expires_at, "never waited past the deadline"
        assert session.shared.background_runs == [ROOT], "the passages are owed to the background run"
    finally:
        embedder.release.set()

    background = Session(store=session.store, embedder=FakeEmbedder(dimensions=32), context=CONTEXT,
                         ranking="relevance")
    assert background.use_case.warm_query_vector(ROOT) is True
    assert background.use_case.warm_query_vector(ROOT) is False, "every text is cached now"


def test_scoring_passages_keeps_more_time_back_from_a_silent_provider():
    """Scoring passages costs more per entry: a relevance session stops waiting for the model earlier."""
    waited = {}
    for ranking in ("spec", "relevance"):
        embedder = PassageBlockingEmbedder("never the whole query", dimensions=32)
        session = imported(Session(embedder=embedder, context=CONTEXT, ranking=ranking,
                                   ticker=FakeTicker(start=100.0)))
        stored(session.store, 300, FakeEmbedder(dimensions=32))
        try:
            answer = session.run()
        finally:
            embedder.release.set()
        assert len(answer.retrieval.selected) == 20, "keywords and prominence still rank"
        waited[ranking] = session.ticker.now
    assert waited["relevance"] < waited["spec"]
