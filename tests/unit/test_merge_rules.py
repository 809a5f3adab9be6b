"""The merge rules of a repeated write and of an import (memory_core.entries.merge), as properties."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import given, strategies as st

from memory_core.entries.merge import imported, reinforced
from memory_core.entries.models import EntryDraft

T0 = datetime(2026, 11, 1, tzinfo=timezone.utc)
words = st.text(alphabet="abcdefghij ", min_size=3, max_size=30).filter(lambda t: t.strip())
confidences = st.sampled_from(["high", "medium", "low"])


@st.composite
def drafts(draw, description: str = "Keep database writes short so other writers are not blocked."):
    fields = {"name": draw(words), "description": description, "category": "patterns", "source": "retro"}
    for key, strategy in (("reasoning", words), ("keywords", st.lists(st.sampled_from(["sqlite", "wal", "locks"]),
                                                                          max_size=3, unique=True)),
                          ("references", st.lists(st.sampled_from(["a.py", "b.py"]), max_size=2, unique=True)),
                          ("confidence", confidences),
                          ("observation_count", st.integers(min_value=1, max_value=50))):
        if draw(st.booleans()):
            fields[key] = draw(strategy)
    return EntryDraft(**fields)


@given(first=drafts(), repeats=st.lists(drafts(), min_size=1, max_size=6))
def test_every_repeat_counts_exactly_one_observation_and_keeps_what_was_not_given(first, repeats):
    entry = reinforced(None, first, T0)
    assert (entry.id, entry.observation_count, entry.created_at) == (first.entry_id, first.observation_count, T0)
    entry = entry.with_changes(recall_count=7)
    for n, draft in enumerate(repeats, start=1):
        before = entry
        entry = reinforced(before, draft, T0 + timedelta(hours=n))
        assert entry.observation_count == before.observation_count + 1
        assert (entry.recall_count, entry.created_at, entry.category, entry.source) == \
            (7, T0, before.category, before.source)
        assert entry.updated_at == T0 + timedelta(hours=n)
        assert entry.name == draft.name
        assert entry.reasoning == (draft.reasoning or before.reasoning)
        given_fields = draft.model_fields_set
        assert entry.keywords == (draft.keywords if "keywords" in given_fields and draft.keywords
                                  else before.keywords)
        assert entry.confidence == (draft.confidence if "confidence" in given_fields else before.confidence)
    assert entry.observation_count == first.observation_count + len(repeats)


@given(stored=drafts(), bank=st.lists(drafts(), min_size=1, max_size=5))
def test_an_import_only_catches_up_and_importing_again_changes_nothing(stored, bank):
    entry = reinforced(None, stored, T0)
    for draft in bank:
        status, changed = imported(entry, draft, T0, None, deleted=False)
        after = changed or entry
        assert after.observation_count == max(entry.observation_count, draft.observation_count)
        assert status == ("updated" if changed else "unchanged")
        assert imported(after, draft, T0, None, deleted=False) == ("unchanged", None)
        entry = after
    assert entry.observation_count == max([stored.observation_count] + [d.observation_count for d in bank])


@given(draft=drafts())
def test_a_deleted_entry_stays_deleted_and_a_new_one_is_marked_imported(draft):
    assert imported(None, draft, T0, None, deleted=True) == ("deleted", None)
    later = T0 - timedelta(days=3)
    unnamed = EntryDraft(**draft.model_dump(exclude={"source"}))  # markdown that does not say how it was stored
    status, entry = imported(None, unnamed, T0, later, deleted=False)
    assert status == "new" and entry.source == "import" and entry.updated_at == later and entry.created_at == T0
    assert imported(None, draft, T0, later, deleted=False)[1].source == "retro", "an exported entry keeps its source"


def test_a_scope_survives_its_own_project_and_widens_only_by_a_write_elsewhere():
    draft = EntryDraft(name="n", description="Scoped learning.", category="patterns", scope="git:aaa")
    entry = reinforced(None, draft, T0)
    assert reinforced(entry, draft, T0).scope == "git:aaa"
    assert reinforced(entry, draft.model_copy(update={"scope": "git:bbb"}), T0).scope is None
    assert reinforced(entry, draft.model_copy(update={"scope": None}), T0).scope is None
    other_bank = draft.model_copy(update={"scope": "git:bbb", "observation_count": 9})
    status, changed = imported(entry, other_bank, T0, None, deleted=False)
    assert status == "updated" and changed.scope == "git:aaa", "another project's bank never changes the scope"
    status, changed = imported(entry, draft.model_copy(update={"scope": None}), T0, None, deleted=False)
    assert status == "updated" and changed.scope is None, "the global store's markdown makes it universal"
    universal = entry.with_changes(scope=None)
    assert imported(universal, draft, T0, None, deleted=False) == ("unchanged", None), "never narrowed"
