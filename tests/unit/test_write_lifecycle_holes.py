"""Writes against the lifecycle (issue 24 review): a retired learning's text is refused, not revived; the text an
edit replaced reinforces the entry it became; references a repeat or a merge adds are anchored; `confirm` keeps
the anchor of a cited file that is gone and says so."""

from __future__ import annotations

import pytest

from memory_core.anchors.anchor import Anchor
from memory_core.anchors.states import MISSING, MOVED, AnchorState
from memory_core.entries.hashing import content_hash
from memory_core.entries.models import EntryDraft
from memory_core.entries.records import HistoryEvent
from memory_core.errors import InvalidEntry
from memory_core.usecases.lifecycle.changes import Confirm, Retire
from memory_core.usecases.lifecycle.supersede import Supersede
from memory_core.usecases.remember import Remember
from memory_core.usecases.retired_refusal import RetiredLearning
from tests.fakes import FakeClock
from tests.unit._lifecycle_fake import LifecycleStore

ACTOR = "ana via cli"
TEXT = "Quote every CSV field."


def draft(description, name="Quote fields", references=None):
    fields = dict(name=name, description=description, category="patterns")
    if references is not None:
        fields["references"] = list(references)
    return EntryDraft(**fields)


def anchoring(project="p"):
    """Anchors as a writer takes them in project `project`: one per reference, its blob named after it."""
    def take(references):
        take.calls.append(list(references))
        return tuple(Anchor(r, f"{len(take.calls)}" * 40, project=project) for r in references)
    take.calls = []
    return take


def test_a_retired_learnings_text_is_refused_with_what_when_why_and_how_back():
    store, clock = LifecycleStore(), FakeClock()
    remember = Remember(store, clock)
    entry_id = remember.run(draft(TEXT)).entry_id
    newer = remember.run(draft("Let the csv module quote.", name="Use csv")).entry_id
    store.retire(entry_id, HistoryEvent(entry_id, "retired", clock.now(), ACTOR, {"reason": "wrong"}),
                 superseded_by=newer)
    events = len(store.events)

    with pytest.raises(RetiredLearning) as raised:
        remember.run(draft(TEXT, name="Quote fields again"))

    assert raised.value.field == "description"
    assert raised.value.message == (f"{entry_id} — Quote fields was retired on 2026-11-01 (wrong; superseded by "
                                    f"{newer}); `iflow-memory restore {entry_id}` brings it back")
    assert store.get(entry_id) is None and store.retired(entry_id).entry.observation_count == 1
    assert len(store.events) == events, "nothing stored, nothing recorded"


def test_merging_into_a_retired_learning_is_refused_and_a_supersede_of_its_text_stores_nothing():
    store, clock = LifecycleStore(), FakeClock()
    remember = Remember(store, clock)
    gone = remember.run(draft(TEXT)).entry_id
    live = remember.run(draft("Let the csv module quote.", name="Use csv")).entry_id
    Retire(store, clock).run(gone, "", ACTOR)

    with pytest.raises(RetiredLearning) as raised:
        remember.run(draft("Quote all the fields.", name="Quote"), merge_into=gone, actor=ACTOR)
    assert raised.value.field == "merge_into"
    assert raised.value.described == f"{gone} — Quote fields was retired on 2026-11-01"
    with pytest.raises(RetiredLearning):
        Supersede(store, store, clock, remember).run(draft(TEXT), live, ACTOR)
    assert store.get(live) is not None and store.get(gone) is None and len(store.entries) == 1


def test_the_text_an_edit_replaced_reinforces_the_entry_it_became():
    store, clock = LifecycleStore(), FakeClock()
    take = anchoring()
    remember = Remember(store, clock, anchoring=take)
    current = remember.run(draft("Quote every CSV field, always.", references=["src/a.py"])).entry_id
    store.alias[content_hash(TEXT)] = current  # an edit gave the learning its new text

    again = remember.run(draft(TEXT, references=["src/b.py"]))

    assert (again.entry_id, again.created, again.observation_count) == (current, False, 2)
    assert store.get(content_hash(TEXT)) is None and len(store.entries) == 1
    assert store.get(current).references == ["src/a.py", "src/b.py"]
    assert [a.reference for a in store.get(current).anchors] == ["src/a.py", "src/b.py"]


def test_superseding_a_learning_with_the_text_an_edit_replaced_is_refused():
    store, clock = LifecycleStore(), FakeClock()
    remember = Remember(store, clock)
    current = remember.run(draft("Quote every CSV field, always.")).entry_id
    store.alias[content_hash(TEXT)] = current
    with pytest.raises(InvalidEntry) as raised:
        Supersede(store, store, clock, remember).run(draft(TEXT), current, ACTOR)
    assert raised.value.field == "supersedes" and store.get(current).observation_count == 1
    assert store.retired(current) is None, "never retired as superseded by itself"


def test_references_a_repeat_adds_are_anchored_and_the_old_anchors_stay():
    store, clock = LifecycleStore(), FakeClock()
    take = anchoring()
    remember = Remember(store, clock, anchoring=take)
    entry_id = remember.run(draft(TEXT, references=["src/a.py"])).entry_id
    learned = store.get(entry_id).anchors
    theirs = Anchor("src/b.py", "f" * 40, project="other")  # another project's anchor says nothing of this one
    store.set_anchors(entry_id, (*learned, theirs))

    remember.run(draft(TEXT, references=["src/a.py", "src/b.py"]))

    anchors = store.get(entry_id).anchors
    assert anchors[:2] == (*learned, theirs), "kept as they were learned"
    assert [(a.reference, a.project) for a in anchors[2:]] == [("src/b.py", "p")]
    calls = len(take.calls)
    remember.run(draft(TEXT, references=["src/a.py", "src/b.py"]))
    assert store.get(entry_id).anchors == anchors and len(take.calls) == calls + 1


def test_references_a_merge_adds_are_anchored():
    store, clock = LifecycleStore(), FakeClock()
    remember = Remember(store, clock, anchoring=anchoring())
    target = remember.run(draft(TEXT, references=["src/a.py"])).entry_id
    learned = store.get(target).anchors

    merged = remember.run(draft("Always quote CSV fields.", references=["src/c.py"]), merge_into=target, actor=ACTOR)

    assert merged.merged and merged.observation_count == 2
    anchors = store.get(target).anchors
    assert anchors[0] == learned[0] and [a.reference for a in anchors] == ["src/a.py", "src/c.py"]


def test_confirm_keeps_the_anchor_of_a_cited_file_that_is_gone_and_says_where_it_went():
    store, clock = LifecycleStore(), FakeClock()
    entry_id = Remember(store, clock).run(draft(TEXT, references=["src/a.py", "src/b.py", "src/old.py"])).entry_id
    old = {r: Anchor(r, "0" * 40, project="p") for r in ("src/a.py", "src/b.py", "src/old.py")}
    store.set_anchors(entry_id, tuple(old.values()))
    fresh = [Anchor("src/a.py", "a" * 40, project="p"), Anchor("src/b.py", "b" * 40, project="p")]
    checked = []

    def state_of(anchor):
        checked.append(anchor)
        return AnchorState(anchor.reference, MOVED, "src/new.py")

    confirmed = Confirm(store, store, clock, lambda references: fresh, project="p", state_of=state_of).run(
        entry_id, ACTOR)

    assert checked == [old["src/old.py"]]
    assert set(store.get(entry_id).anchors) == {old["src/old.py"], *fresh}, "the mark of src/old.py stays"
    assert (confirmed.anchored, confirmed.cited, confirmed.id) == (2, 3, entry_id)
    assert confirmed.summary() == ("confirmed 2 of 3 citations; src/old.py is still gone (moved to src/new.py): "
                                   "supersede the learning with the new path, or retire it")
    assert store.history(entry_id)[-1].detail == {"anchored": ["src/a.py", "src/b.py"], "still_gone": ["src/old.py"]}


def test_confirm_of_a_file_gone_for_good_and_of_all_current_citations():
    store, clock = LifecycleStore(), FakeClock()
    entry_id = Remember(store, clock).run(draft(TEXT, references=["src/a.py", "src/gone.py"])).entry_id
    confirm = Confirm(store, store, clock, lambda references: [Anchor("src/a.py", "a" * 40, project="p")],
                      project="p", state_of=lambda anchor: AnchorState(anchor.reference, MISSING))
    assert confirm.run(entry_id, ACTOR).summary() == (
        "confirmed 1 of 2 citations; src/gone.py is still gone: supersede the learning with what is true now, "
        "or retire it")
    everything = Confirm(store, store, clock, lambda references: [Anchor(r, "a" * 40, project="p")
                                                                  for r in references], project="p")
    assert everything.run(entry_id, ACTOR).summary() == "anchored to the code as it is now (2 citations anchored)"
