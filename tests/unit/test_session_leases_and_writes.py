"""SessionStart's leases (one process imports and embeds, every lease is given back) and its writes (nothing
before the block is printed; recalls, vectors and the pin after, by `finish`)."""

from __future__ import annotations

from memory_core.ports.shared_work import IMPORT_TASK, VECTORS_TASK
from memory_core.embedding.space import EmbeddingSpace, pin_space
from memory_core.usecases.session_start import SEMANTIC
from tests.fakes import FakeEmbedder
from tests.unit._session_harness import ROOT, STORE_DIR, Session, knowledge, stored

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


def test_every_lease_is_given_back():
    embedder = FakeEmbedder(dimensions=32)
    session = Session(embedder=embedder, bank=[knowledge(i) for i in range(12)])

    session.run(finish=False)

    assert session.shared.held == set(), "given back before the block is printed"
    assert any(c.startswith(IMPORT_TASK) for c in session.shared.claims) and VECTORS_TASK in session.shared.claims


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


class _GitAnswersLate:
    """BankAuthorship whose git does not answer in a session's time, then (a later run) says the bank is the
    user's own; counting the calls."""

    def __init__(self) -> None:
        self.verdict = "unknown"
        self.calls = 0

    def authors(self, project_root, categories, timeout_s):
        from memory_core.ports.bank_authorship import BankAuthors

        self.calls += 1
        return BankAuthors({c: self.verdict for c in categories})


def test_a_bank_git_did_not_judge_in_time_is_judged_again_by_the_background_run():
    """The first session scopes the bank for now and hands it to the background run; later sessions do not
    spend their time on the slow git again; the background run's verdict widens the user's own entries."""
    git = _GitAnswersLate()
    session = Session(bank=[knowledge(i) for i in range(6)], authorship=git)

    first = session.run()

    assert first.import_report.complete and session.shared.background_runs == [ROOT], "the background run asks again"
    assert {e.scope for e in session.store.all_entries()} == {"path:" + ROOT}, "scoped while unknown"
    assert session.run().import_report is not None and git.calls == 1, "a later session waits for git no more"
    git.verdict = "own"
    background = session.use_case._importer()  # noqa: SLF001 - what `maintain` runs: no deadline
    background.run(ROOT, STORE_DIR)
    assert git.calls == 2 and {e.scope for e in session.store.all_entries()} == {None}, "the user's own: universal"
    assert session.run().import_report is None, "decided: imported for good"
