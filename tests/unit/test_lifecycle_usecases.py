"""Retire, Restore, Confirm, Supersede and Review over an in-memory lifecycle store (ADR 26)."""

from __future__ import annotations

import pytest

from memory_core.anchors.anchor import Anchor
from memory_core.anchors.states import CHANGED, CURRENT, MISSING, MOVED, AnchorState
from memory_core.entries.models import EntryDraft
from memory_core.errors import InvalidEntry
from memory_core.usecases.lifecycle.changes import Confirm, Restore, Retire
from memory_core.usecases.lifecycle.review import Review
from memory_core.usecases.lifecycle.supersede import Supersede
from memory_core.usecases.remember import Remember
from tests.fakes import FakeClock
from tests.unit._lifecycle_fake import LifecycleStore

ACTOR = "ana via cli"


def draft(description, name="A learning", references=()):
    return EntryDraft(name=name, description=description, category="patterns", references=list(references))


def stored(store, clock, description, **kw):
    return Remember(store, clock).run(draft(description, **kw)).entry_id


def test_retire_then_restore_keeps_the_entry_and_records_both():
    store, clock = LifecycleStore(), FakeClock()
    entry_id = stored(store, clock, "Quote every CSV field.")
    changed = Retire(store, clock).run(entry_id, "wrong advice", ACTOR)
    assert changed.entry.id == entry_id and store.get(entry_id) is None
    assert store.retired(entry_id).reason == "wrong advice"
    assert Retire(store, clock).run(entry_id, "", ACTOR) is None  # not live any more
    clock.advance(hours=1)
    assert Restore(store, clock).run(entry_id, ACTOR).entry.id == entry_id
    assert store.get(entry_id) is not None and store.retired(entry_id) is None
    assert Restore(store, clock).run(entry_id, ACTOR) is None  # not retired any more
    assert [(e.action, e.actor, e.detail) for e in store.history(entry_id)] == [
        ("retired", ACTOR, {"reason": "wrong advice"}), ("restored", ACTOR, {})]


def test_confirm_reanchors_to_todays_code():
    store, clock = LifecycleStore(), FakeClock()
    entry_id = stored(store, clock, "Sniff the dialect first.", references=["src/sniff.py", "src/gone.py"])
    asked = []

    def anchors_for(references):
        asked.append(list(references))
        return [Anchor("src/sniff.py", "b" * 40, project="p")]  # the gone file gets no anchor

    changed = Confirm(store, store, clock, anchors_for).run(entry_id, ACTOR)
    assert asked == [["src/sniff.py", "src/gone.py"]]
    assert store.get(entry_id).anchors == (Anchor("src/sniff.py", "b" * 40, project="p"),) == changed.entry.anchors
    [event] = store.history(entry_id)
    assert (event.action, event.detail) == ("confirmed", {"anchored": ["src/sniff.py"], "still_gone": ["src/gone.py"]})
    assert Confirm(store, store, clock, anchors_for).run("0" * 16, ACTOR) is None


def test_confirm_keeps_the_anchors_another_project_took():
    store, clock = LifecycleStore(), FakeClock()
    entry_id = stored(store, clock, "Sniff the dialect first.", references=["src/sniff.py"])
    theirs, old_mine = Anchor("src/sniff.py", "c" * 40, project="other"), Anchor("src/sniff.py", "d" * 40, project="p")
    store.set_anchors(entry_id, [theirs, old_mine])
    fresh = Anchor("src/sniff.py", "b" * 40, project="p")

    Confirm(store, store, clock, lambda references: [fresh], project="p").run(entry_id, ACTOR)

    assert store.get(entry_id).anchors == (theirs, fresh)


def test_supersede_stores_the_new_and_retires_the_old_pointing_to_it():
    store, clock = LifecycleStore(), FakeClock()
    old = stored(store, clock, "Split CSV rows on commas.", name="Split rows")
    result = Supersede(store, store, clock, Remember(store, clock)).run(
        draft("Let the csv module split rows.", name="Use the csv module"), old, ACTOR)
    new = result.remembered.entry_id
    assert (result.old_id, result.old_name) == (old, "Split rows")
    assert store.get(old) is None and store.get(new) is not None
    assert store.retired(old).superseded_by == new
    assert [(e.action, e.detail) for e in store.history(old)] == [("superseded", {"by": new})]
    assert [(e.action, e.detail) for e in store.history(new)] == [("superseded", {"supersedes": old})]


@pytest.mark.parametrize("case", ["unknown", "retired", "same"])
def test_supersede_refuses_before_storing_anything(case):
    store, clock = LifecycleStore(), FakeClock()
    old = stored(store, clock, "Split CSV rows on commas.")
    if case == "retired":
        Retire(store, clock).run(old, "", ACTOR)
    target = "0" * 16 if case == "unknown" else old
    new_text = "Split CSV rows on commas." if case == "same" else "Let the csv module split rows."
    before = (dict(store.entries), len(store.events))
    with pytest.raises(InvalidEntry) as raised:
        Supersede(store, store, clock, Remember(store, clock)).run(draft(new_text), target, ACTOR)
    assert raised.value.field == "supersedes"
    assert (dict(store.entries), len(store.events)) == before


def test_supersede_follows_an_edited_id():
    store, clock = LifecycleStore(), FakeClock()
    current = stored(store, clock, "Split CSV rows on commas.")
    store.alias["0123456789abcdef"] = current  # an edit left the old id resolving to the current one
    result = Supersede(store, store, clock, Remember(store, clock)).run(
        draft("Let the csv module split rows."), "0123456789abcdef", ACTOR)
    assert result.old_id == current and store.retired(current) is not None


def test_review_lists_the_three_queues_in_a_stable_order():
    store, clock = LifecycleStore(), FakeClock()
    ids = [stored(store, clock, f"Learning number {n}.", references=[f"src/f{n}.py"]) for n in range(5)]
    for entry_id in ids[:4]:
        store.set_anchors(entry_id, [Anchor(store.get(entry_id).references[0], "a" * 40)])
    states = {ids[0]: [AnchorState("src/f0.py", MOVED, "src/g0.py")], ids[1]: [AnchorState("src/f1.py", MISSING)],
              ids[2]: [AnchorState("src/f2.py", CHANGED)], ids[3]: [AnchorState("src/f3.py", CURRENT)]}
    checked = []

    def stale_check(entries):
        checked.extend(e.id for e in entries)
        return states

    old = stored(store, clock, "An old way.")
    Supersede(store, store, clock, Remember(store, clock)).run(draft("A new way."), old, ACTOR)
    pairs = [(ids[4], ids[3], 0.91), (ids[1], ids[2], 0.95), (ids[3], ids[4], 0.91)]  # one pair twice
    queues = Review(store, store, stale_check, lambda entries: pairs).run()
    assert sorted(checked) == sorted(ids[:4])  # only anchored entries are checked
    assert [s.entry.id for s in queues.stale] == sorted(ids[:3])
    assert {s.entry.id: s.states for s in queues.stale}[ids[0]] == (AnchorState("src/f0.py", MOVED, "src/g0.py"),)
    assert [(p.first.id, p.second.id, p.score) for p in queues.near_duplicates] == [
        tuple(sorted((ids[1], ids[2]))) + (0.95,), tuple(sorted((ids[3], ids[4]))) + (0.91,)]
    assert [r.entry.id for r in queues.superseded] == [old]
    assert not queues.empty()


def test_locate_finds_live_retired_and_edited_ids_by_prefix():
    from memory_core.policies.entry_ids import AmbiguousId
    from memory_core.usecases.lifecycle.locate import locate

    store, clock = LifecycleStore(), FakeClock()
    live = stored(store, clock, "Quote every CSV field.")
    gone = stored(store, clock, "Split on commas.")
    Retire(store, clock).run(gone, "wrong", ACTOR)
    store.alias["abcd0123456789ef"] = live
    assert locate(store, store, live[:6]).entry.id == live
    found = locate(store, store, gone[:6])
    assert (found.entry, found.retired.entry.id) == (None, gone)
    edited = locate(store, store, "abcd01")
    assert (edited.entry_id, edited.edited_from) == (live, "abcd0123456789ef")
    assert locate(store, store, "0" * 16) is None
    store.alias["abcd0fffffffffff"] = live
    with pytest.raises(AmbiguousId):
        locate(store, store, "abcd0")
