"""EmbedPending: pins a space, embeds in batches, and re-embeds into a new space without mixing two spaces."""

from __future__ import annotations

from functools import partial
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from memory_core.errors import EmbeddingError, RateLimited
from memory_core.entries.models import EntryDraft
from memory_core.ranking.scoring import Weights
from memory_core.embedding.space import EmbeddingSpace, pinned_space, staged_space
from memory_core.usecases import embed_pending
from memory_core.usecases.embed_pending import EmbedPending
from memory_core.usecases.retrieve import RetrieveAndRank
from tests.fakes import T0, FakeClock, FakeEmbedder, FakeVectorIndex, InMemoryEntryStore

QUERY = "lesson about staging vectors"
old_embedder = partial(FakeEmbedder, dimensions=16, provider_name="fake", model_name="old-model")
new_embedder = partial(FakeEmbedder, dimensions=24, provider_name="fake", model_name="new-model")


class ScriptedEmbedder(FakeEmbedder):
    """A FakeEmbedder that raises `error` on document call number `fail_on`."""

    def __init__(self, fail_on: int = 0, error: Exception = EmbeddingError(), **kwargs) -> None:
        super().__init__(**kwargs)
        self.fail_on, self.error, self.document_calls = fail_on, error, 0

    def embed_documents(self, texts):
        self.document_calls += 1
        if self.document_calls == self.fail_on:
            raise self.error
        return super().embed_documents(texts)


def add(store, i: int) -> str:
    draft = EntryDraft(name=f"Lesson {i}", description=f"Lesson number {i} about staging vectors", category="patterns")
    return store.upsert(draft, T0).entry_id


def store_with(count: int) -> tuple[InMemoryEntryStore, list[str]]:
    store = InMemoryEntryStore()
    return store, [add(store, i) for i in range(count)]


def embedded_texts(embedder: FakeEmbedder) -> list[list[str]]:
    return [texts for kind, texts in embedder.calls if kind == "documents"]


def migrating_store(count: int = 5) -> tuple[InMemoryEntryStore, list[str]]:
    """A store whose entries all have vectors of the old (16d) space."""
    store, ids = store_with(count)
    assert EmbedPending(store, old_embedder()).run(max_entries=None).remaining == 0
    return store, ids


def retrieve(store, embedder: FakeEmbedder):
    return RetrieveAndRank(store, FakeClock(), Weights(), embedder=embedder,
                           vector_index=FakeVectorIndex(store, embedder.dimensions)).run(QUERY, 10)


# -- the pinned space ------------------------------------------------------------------------
def test_first_run_pins_the_embedders_space_and_embeds_everything():
    store, ids = store_with(7)
    embedder = old_embedder()
    report = EmbedPending(store, embedder, batch_size=3).run(max_entries=None)
    assert (report.embedded, report.remaining, report.error, report.rate_limited) == (7, 0, None, False)
    assert pinned_space(store) == EmbeddingSpace("fake", "old-model", 16) and store.pending_ids(100) == []
    assert sorted(dict(store.vectors())) == sorted(ids)
    assert all(len(blob) == 16 * 4 for _, blob in store.vectors())
    assert [len(t) for t in embedded_texts(embedder)] == [3, 3, 1]


def test_max_entries_limits_a_run_and_the_next_run_resumes():
    store, ids = store_with(10)
    embedder = old_embedder()
    use = EmbedPending(store, embedder, batch_size=3)
    first = use.run(max_entries=4)
    assert (first.embedded, first.remaining) == (4, 6)
    done_first = set(dict(store.vectors()))
    second = use.run(max_entries=4)
    assert (second.embedded, second.remaining) == (4, 2)
    assert len(set(dict(store.vectors())) - done_first) == 4
    assert use.run(max_entries=None).remaining == 0
    texts = [t for batch in embedded_texts(embedder) for t in batch]
    assert len(texts) == len(set(texts)) == 10  # nothing embedded twice


def test_first_ids_go_in_the_first_batch():
    store, ids = store_with(10)
    embedder = old_embedder()
    wanted = [ids[8], ids[5]]
    report = EmbedPending(store, embedder, batch_size=3).run(max_entries=3, first=["ffffffffffffffff", *wanted])
    assert report.embedded == 3 and set(wanted) <= set(dict(store.vectors()))
    first_batch = embedded_texts(embedder)[0]
    assert "Lesson number 8" in first_batch[0] and "Lesson number 5" in first_batch[1]


def test_rate_limit_stops_the_run_and_keeps_finished_batches():
    store, ids = store_with(6)
    flaky = ScriptedEmbedder(2, RateLimited("429"), dimensions=16, provider_name="fake", model_name="old-model")
    report = EmbedPending(store, flaky, batch_size=2).run(max_entries=None)
    assert (report.rate_limited, report.error, report.embedded, report.remaining) == (True, None, 2, 4)
    assert len(dict(store.vectors())) == 2
    again = EmbedPending(store, old_embedder(), batch_size=2).run(max_entries=None)
    assert (again.embedded, again.remaining, again.rate_limited) == (4, 0, False)


def test_embedding_error_is_reported_and_nothing_is_stored():
    store, ids = store_with(4)
    broken = ScriptedEmbedder(1, EmbeddingError("provider exploded"), dimensions=16)
    report = EmbedPending(store, broken).run(max_entries=None)
    assert report.error == "provider exploded"
    assert (report.embedded, report.remaining, report.rate_limited) == (0, 4, False)
    assert list(store.vectors()) == []


def test_deadline_stops_between_batches(monkeypatch):
    """Each call takes 0.05 s of a clock only the embedder moves: two batches fit before 0.08 s, none starts after."""
    clock = SimpleNamespace(now=0.0)
    monkeypatch.setattr(embed_pending, "time", SimpleNamespace(monotonic=lambda: clock.now))

    class SlowEmbedder(FakeEmbedder):
        def embed_documents(self, texts):
            clock.now += 0.05
            return super().embed_documents(texts)

    store, ids = store_with(20)
    report = EmbedPending(store, SlowEmbedder(dimensions=16), batch_size=1).run(max_entries=None, deadline_s=0.08)
    assert report.embedded == 2
    assert report.remaining == 18


# -- re-embedding into another space ---------------------------------------------------------
def test_another_space_is_staged_aside_and_queries_keep_the_old_space():
    store, ids = migrating_store()
    before = dict(store.vectors())
    report = EmbedPending(store, new_embedder(), batch_size=2).run(max_entries=2)
    assert report.migrating_to == "fake/new-model (24d)"
    assert (report.embedded, report.remaining, report.promoted) == (2, 3, False)
    assert dict(store.vectors()) == before
    assert (staged_space(store).model, pinned_space(store).model) == ("new-model", "old-model")
    assert all(len(blob) == 24 * 4 for blob in store.staged_by_id.values())
    assert retrieve(store, old_embedder()).vector.ran is True
    refused = retrieve(store, new_embedder()).vector
    assert not refused.ran and "fake/old-model (16d)" in refused.reason and "fake/new-model (24d)" in refused.reason


def test_promotion_swaps_in_the_new_space_once_every_entry_is_staged():
    store, ids = migrating_store()
    EmbedPending(store, new_embedder(), batch_size=2).run(max_entries=2)
    report = EmbedPending(store, new_embedder(), batch_size=2).run(max_entries=None)
    assert (report.embedded, report.remaining, report.promoted) == (3, 0, True)
    assert (pinned_space(store), staged_space(store)) == (EmbeddingSpace("fake", "new-model", 24), None)
    assert sorted(dict(store.vectors())) == sorted(ids)
    assert all(len(blob) == 24 * 4 for _, blob in store.vectors())
    assert (retrieve(store, new_embedder()).vector.ran, retrieve(store, old_embedder()).vector.ran) == (True, False)


def test_an_entry_added_mid_migration_is_staged_before_promotion():
    store, ids = migrating_store()
    EmbedPending(store, new_embedder()).run(max_entries=3)
    late = add(store, 99)
    assert late in store.unstaged_ids(100)  # entries added mid-migration need a staged vector too
    almost = EmbedPending(store, new_embedder()).run(max_entries=2)
    assert (almost.remaining, almost.promoted) == (1, False)
    assert store.promote_staged(EmbeddingSpace("fake", "new-model", 24)) is False
    assert pinned_space(store).model == "old-model"
    assert EmbedPending(store, new_embedder()).run(max_entries=None).promoted is True
    assert len(dict(store.vectors())[late]) == 24 * 4


def test_rate_limit_mid_migration_keeps_staged_batches_and_resumes():
    store, ids = migrating_store(6)
    flaky = ScriptedEmbedder(2, RateLimited("429"), dimensions=24, provider_name="fake", model_name="new-model")
    report = EmbedPending(store, flaky, batch_size=2).run(max_entries=None)
    assert (report.rate_limited, report.promoted, report.remaining) == (True, False, 4)
    resumed = new_embedder()
    done = EmbedPending(store, resumed, batch_size=2).run(max_entries=None)
    assert (done.embedded, done.promoted) == (4, True)
    assert sum(len(t) for t in embedded_texts(resumed)) == 4  # the staged batch was not redone


def test_a_third_space_restarts_the_staging():
    store, ids = migrating_store()
    EmbedPending(store, new_embedder()).run(max_entries=3)
    third = FakeEmbedder(dimensions=32, provider_name="other", model_name="third")
    EmbedPending(store, third).run(max_entries=1)
    assert staged_space(store) == EmbeddingSpace("other", "third", 32)
    assert [len(b) for b in store.staged_by_id.values()] == [32 * 4]


def test_without_reembed_nothing_is_staged_and_the_error_names_the_pinned_space():
    store, ids = migrating_store()
    before = dict(store.vectors())
    embedder = new_embedder()
    report = EmbedPending(store, embedder, allow_reembed=False).run(max_entries=None)
    assert "fake/old-model (16d)" in report.error and (report.embedded, report.promoted) == (0, False)
    assert embedded_texts(embedder) == [] and staged_space(store) is None and store.staged_by_id == {}
    assert dict(store.vectors()) == before


# -- invariant: a query never sees two spaces ------------------------------------------------
ACTIONS = st.lists(st.sampled_from(["stage", "add", "embed-old", "query"]), max_size=25)


def query_sees_one_space(store) -> None:
    """What a query reads: the pinned space and the entries' vectors, which must all be of that space."""
    pinned = pinned_space(store)
    assert {len(blob) for _, blob in store.vectors()} <= {4 * pinned.dimensions}
    if any(True for _ in store.vectors()):
        assert retrieve(store, old_embedder()).vector.ran is (pinned.model == "old-model")
        assert retrieve(store, new_embedder()).vector.ran is (pinned.model == "new-model")


def interleave(store, initial: int, actions: list[str], batch: int) -> None:
    for i in range(initial):
        add(store, i)
    EmbedPending(store, old_embedder()).run(max_entries=None)
    added = initial
    for action in actions:
        if action == "stage":
            EmbedPending(store, new_embedder(), batch_size=batch).run(max_entries=batch)
        elif action == "add":
            add(store, added)
            added += 1
        elif action == "embed-old":  # the session-start hook embeds inline in the pinned space only
            EmbedPending(store, old_embedder(), allow_reembed=False).run(max_entries=1)
        query_sees_one_space(store)
    EmbedPending(store, new_embedder()).run(max_entries=None)
    assert pinned_space(store) == EmbeddingSpace("fake", "new-model", 24)
    assert len(dict(store.vectors())) == store.count()
    query_sees_one_space(store)


@settings(max_examples=150, deadline=None)
@given(initial=st.integers(0, 4), actions=ACTIONS, batch=st.integers(1, 3))
def test_in_memory_queries_only_ever_see_one_space(initial, actions, batch):
    interleave(InMemoryEntryStore(), initial, actions, batch)
