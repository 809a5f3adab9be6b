"""Near-duplicates (ADR 26): the score of two learnings, the finder a write asks, and Remember's report and
`merge_into`."""

from __future__ import annotations

import pytest

from memory_core.entries.models import EntryDraft
from memory_core.entries.records import HistoryEvent
from memory_core.errors import EmbeddingError, InvalidEntry
from memory_core.ports.entry_lifecycle import EntryLifecycle
from memory_core.ranking.near_duplicates import (
    CROSS_CATEGORY_PENALTY, KEYWORD_ONLY_THRESHOLD, MIN_CANDIDATE_COSINE, THRESHOLD, near_duplicate_pairs,
    near_duplicates, pair_score, word_overlap, words,
)
from memory_core.usecases.near_duplicates import FindNearDuplicates
from memory_core.usecases.remember import Remember
from tests.fakes import FakeClock, InMemoryEntryStore

CSV = ("Quote CSV fields", "Never split CSV rows by hand on commas; use the csv module so quoted fields survive.")
CSV_AGAIN = ("Do not split CSV lines yourself", "Splitting CSV lines on commas by hand breaks quoted fields; "
             "parse them with the csv module.")
DEPLOY = ("Roll back first", "When a deploy breaks production, roll back before debugging.")


def stored(store, name, description, category="anti-patterns", **fields):
    return store.get(store.upsert(EntryDraft(name=name, description=description, category=category, **fields),
                                  FakeClock().now()).entry_id)


# --- the score ---------------------------------------------------------------------------------------------------

def test_words_are_lower_case_stemmed_content_words():
    assert words("Reviewers parsing", "The reviewer parses the files") == {"reviewer", "pars", "fil"}
    assert words("Reviewer parsed", "a file; parse it") == {"reviewer", "pars", "fil"}


def test_word_overlap_is_jaccard():
    assert word_overlap(frozenset("ab"), frozenset("bc")) == pytest.approx(1 / 3)
    assert word_overlap(frozenset(), frozenset()) == 0.0


def test_the_score_weighs_cosine_and_overlap_and_penalises_two_categories():
    same = pair_score(0.9, 0.5, same_category=True)
    assert same == pytest.approx(0.7 * 0.9 + 0.3 * 0.5)
    assert pair_score(0.9, 0.5, same_category=False) == pytest.approx(same - CROSS_CATEGORY_PENALTY)
    assert pair_score(None, 0.5, same_category=True) == 0.5  # keyword-only: the overlap alone


def test_the_keyword_only_rule_is_stricter_than_the_word_share_of_the_vector_rule():
    # A perfect word overlap with no vector agreement never passes the vector rule through words alone.
    assert pair_score(MIN_CANDIDATE_COSINE, 1.0, True) == pytest.approx(THRESHOLD)
    assert KEYWORD_ONLY_THRESHOLD > 0.3  # the real bank's closest distinct pair overlaps 0.273


def test_near_duplicates_flags_a_rewording_not_a_stranger_nor_itself():
    store = InMemoryEntryStore()
    csv, deploy = stored(store, *CSV), stored(store, *DEPLOY)
    found = near_duplicates(*CSV_AGAIN, "anti-patterns", [(csv, 0.85), (deploy, 0.2)])
    assert [(e.id, s) for e, s in found] == [(csv.id, pytest.approx(found[0][1]))]
    assert found[0][1] >= THRESHOLD
    assert near_duplicates(*CSV_AGAIN, "anti-patterns", [(csv, 0.85)], exclude=[csv.id]) == []


def test_a_learning_of_another_category_needs_far_more_to_be_flagged():
    store = InMemoryEntryStore()
    csv = stored(store, *CSV)
    assert near_duplicates(*CSV_AGAIN, "anti-patterns", [(csv, 0.8)])
    assert near_duplicates(*CSV_AGAIN, "patterns", [(csv, 0.8)]) == []


def test_without_a_vector_only_a_close_wording_is_flagged():
    store = InMemoryEntryStore()
    csv = stored(store, *CSV)
    assert near_duplicates(*CSV_AGAIN, "anti-patterns", [(csv, None)]) == []
    verbatim = ("Quote CSV fields", "Never split CSV rows by hand on commas: use the csv module so quoted fields "
                                    "survive intact.")
    assert near_duplicates(*verbatim, "anti-patterns", [(csv, None)])


def test_pairs_are_listed_once_best_first():
    store = InMemoryEntryStore()
    a, b, c = stored(store, *CSV), stored(store, *CSV_AGAIN), stored(store, *DEPLOY)
    neighbours = {a.id: {b.id: 0.9, c.id: 0.1}, b.id: {a.id: 0.9}, c.id: {a.id: 0.1}}
    pairs = near_duplicate_pairs([a, b, c], neighbours)
    assert [(x, y) for x, y, _ in pairs] == [tuple(sorted((a.id, b.id)))]


# --- the finder a write asks -------------------------------------------------------------------------------------

class Embedder:
    """Gives every text the same vector: the index decides the cosines."""

    provider_name, model_name, dimensions = "fake", "fake", 2

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail

    def embed_documents(self, texts):
        if self.fail:
            raise EmbeddingError("model went away")
        return [[1.0, 0.0] for _ in texts]

    def embed_query(self, text):
        return [1.0, 0.0]


class Index:
    def __init__(self, cosines):
        self.cosines = cosines

    def similarities(self, query):
        return dict(self.cosines)


def test_the_finder_scores_the_nearest_vectors_and_leaves_out_other_projects_entries():
    store = InMemoryEntryStore()
    csv = stored(store, *CSV)
    kept = stored(store, CSV[0], CSV[1] + " Really.", scope="other-project")
    finder = FindNearDuplicates(store, Embedder(), Index({csv.id: 0.85, kept.id: 0.86}), store,
                                scopes=("this-project",))
    assert [n.entry_id for n in finder.run(*CSV_AGAIN, "anti-patterns")] == [csv.id]


def test_without_a_model_the_finder_falls_back_to_the_keyword_rule():
    store = InMemoryEntryStore()
    csv = stored(store, *CSV)
    verbatim = ("Quote CSV fields", "Never split CSV rows by hand on commas: use the csv module so quoted fields "
                                    "survive intact.")
    failing = FindNearDuplicates(store, Embedder(fail=True), Index({csv.id: 0.99}), store)
    assert [n.entry_id for n in failing.run(*verbatim, "anti-patterns")] == [csv.id]
    assert "model went away" in failing.problem
    assert FindNearDuplicates(store, keyword_index=store).run(*CSV_AGAIN, "anti-patterns") == []


# --- Remember: the report and merge_into -------------------------------------------------------------------------

class HistoryStore(InMemoryEntryStore):
    """The in-memory store with the lifecycle's history (the rest of the port answers nothing)."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[HistoryEvent] = []

    def record_event(self, event):
        self.events.append(event)

    def resolve(self, entry_id):
        return entry_id

    def set_anchors(self, *args, **kwargs): return False
    def retire(self, *args, **kwargs): return None
    def restore(self, *args, **kwargs): return None
    def retired(self, entry_id): return None
    def retired_entries(self): return []
    def replace_text(self, *args, **kwargs): return None
    def aliases(self): return {}
    def history(self, entry_id): return [e for e in self.events if e.entry_id == entry_id]
    def all_history(self): return list(self.events)
    def apply_history(self, *args): return None
    def bank_blocks(self, bank): return {}
    def set_bank_blocks(self, bank, blocks): return None


def test_remember_reports_the_learning_a_draft_rewords_and_stores_the_draft_all_the_same():
    store = InMemoryEntryStore()
    csv = stored(store, *CSV)
    remember = Remember(store, FakeClock(), neighbours=FindNearDuplicates(store, Embedder(), Index({csv.id: 0.85})))
    result = remember.run(EntryDraft(name=CSV_AGAIN[0], description=CSV_AGAIN[1], category="anti-patterns"))
    assert result.created and store.count() == 2
    assert [(n.entry_id, n.name) for n in result.near_duplicates] == [(csv.id, CSV[0])]


def test_a_repeat_of_the_same_text_is_a_reinforcement_not_a_near_duplicate():
    store = InMemoryEntryStore()
    csv = stored(store, *CSV)
    remember = Remember(store, FakeClock(), neighbours=FindNearDuplicates(store, Embedder(), Index({csv.id: 1.0})))
    result = remember.run(EntryDraft(name=CSV[0], description=CSV[1], category="anti-patterns"))
    assert (result.created, result.observation_count, result.near_duplicates) == (False, 2, [])


def test_merge_into_reinforces_the_named_entry_instead_of_storing_the_draft():
    store = HistoryStore()
    assert isinstance(store, EntryLifecycle)
    csv = stored(store, *CSV, references=["src/csv_reader.py"])
    draft = EntryDraft(name=CSV_AGAIN[0], description=CSV_AGAIN[1], category="anti-patterns",
                       references=["src/import.py", "src/csv_reader.py"])
    result = Remember(store, FakeClock()).run(draft, merge_into=csv.id, actor="ana via cli")
    assert (result.merged, result.created, result.entry_id, result.observation_count) == (True, False, csv.id, 2)
    assert store.count() == 1
    after = store.get(csv.id)
    assert (after.description, after.references) == (CSV[1], ["src/csv_reader.py", "src/import.py"])
    [event] = store.events
    assert (event.entry_id, event.action, event.actor, event.detail["from"]) == (csv.id, "merged", "ana via cli",
                                                                                 CSV_AGAIN[0])


def test_merge_into_an_unknown_entry_stores_nothing():
    store = InMemoryEntryStore()
    draft = EntryDraft(name=CSV[0], description=CSV[1], category="anti-patterns")
    with pytest.raises(InvalidEntry, match="no entry with id 0123456789abcdef"):
        Remember(store, FakeClock()).run(draft, merge_into="0123456789abcdef")
    assert store.count() == 0
