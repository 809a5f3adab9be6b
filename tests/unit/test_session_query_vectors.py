"""SessionStart's query vector: remembered per context and embedding space, so an unchanged context needs
no model, and vectors embedded inline score as the stored ones do."""

from __future__ import annotations

from memory_core.ports.context_source import ProjectContext
from memory_core.embedding.space import EmbeddingSpace, pin_space
from memory_core.usecases.session_start import SEMANTIC
from tests.fakes import FakeEmbedder
from tests.unit._session_harness import ROOT, Session, knowledge, stored

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


def test_fresh_vectors_score_like_stored_ones():
    """Entries embedded inline during a session are compared with the query as the stored ones are later."""
    embedder = FakeEmbedder(dimensions=32)
    session = Session(embedder=embedder, bank=[knowledge(i) for i in range(6)])
    inline = session.run()
    later = session.run()  # the same entries, now read back from the store's vectors

    assert inline.step == later.step == SEMANTIC
    assert {r.entry.id: round(r.score, 5) for r in inline.retrieval.selected} == \
        {r.entry.id: round(r.score, 5) for r in later.retrieval.selected}
