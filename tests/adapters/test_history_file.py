"""`<store>/entry-history.md`: the entries' history a rebuild reads back (ADR 26), with retired entries whole."""

from __future__ import annotations

import json
import os
import stat
from datetime import datetime, timedelta, timezone

import pytest

from memory_adapters.fs.safe_files import UnsafeFile
from memory_adapters.markdown.history_file import (
    FILENAME, count_events, entry_json, history_path, read_history, write_history,
)
from memory_core.anchors.anchor import Anchor
from memory_core.entries.hashing import content_hash
from memory_core.entries.records import Entry, HistoryEvent, RetiredEntry

T0 = datetime(2026, 3, 1, 9, 0, 0, tzinfo=timezone.utc)
ACTOR = "ana via cli"


def _entry(text: str, **fields) -> Entry:
    values = dict(id=content_hash(text), name=text[:20], description=text, category="patterns", created_at=T0,
                  updated_at=T0 + timedelta(days=1))
    values.update(fields)
    return Entry(**values)


def _at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


def test_retired_entries_aliases_and_events_come_back_whole(tmp_path):
    gone = _entry("Retired with its anchors and counts.", observation_count=4, recall_count=2,
                  last_recalled_at=_at(5), references=["src/a.py:3"], keywords=["csv"], scope="github.com/a/b",
                  anchors=(Anchor("src/a.py:3", "b10b", "4e910", "github.com/a/b", "c0ffee"),))
    old, mid, new = (content_hash(t) for t in ("v1 of a learning.", "v2 of a learning.", "v3 of a learning."))
    events = [
        HistoryEvent(old, "edited", _at(1), ACTOR, {"old_id": old, "new_id": mid}),
        HistoryEvent(mid, "edited", _at(2), "ana via import", {"old_id": mid, "new_id": new}),
        HistoryEvent(new, "confirmed", _at(3), ACTOR),
        HistoryEvent(gone.id, "retired", _at(4), ACTOR, {"reason": "the module was removed"}),
    ]
    write_history(str(tmp_path), events, [RetiredEntry(gone, _at(4), "the module was removed", new)])

    history = read_history(str(tmp_path))
    assert history.events == events, "a rebuilt event equals the database's (nothing of the file's own in it)"
    (kept,) = history.retired
    assert kept == RetiredEntry(gone, _at(4), "the module was removed", new)
    assert history.aliases == {old: new, mid: new}
    assert count_events(str(tmp_path)) == 4


def test_a_restored_entry_is_not_retired_and_an_undone_edit_leaves_no_alias(tmp_path):
    back = _entry("Retired, then restored.")
    a, b = content_hash("Text A."), content_hash("Text B.")
    events = [HistoryEvent(back.id, "retired", _at(1), ACTOR, {"reason": "stale"}),
              HistoryEvent(back.id, "restored", _at(2), ACTOR),
              HistoryEvent(a, "edited", _at(3), ACTOR, {"old_id": a, "new_id": b}),
              HistoryEvent(b, "edited", _at(4), ACTOR, {"old_id": b, "new_id": a})]
    write_history(str(tmp_path), events)
    history = read_history(str(tmp_path))
    assert history.retired == [] and history.aliases == {b: a}


def test_a_restored_bank_entry_rides_on_its_latest_restore_until_it_leaves_again(tmp_path):
    """A bank entry retired by an import and restored by hand: no markdown holds its block any more, so its
    latest `restored` event carries it whole; a later retirement or edit takes it off again."""
    back = _entry("Restored after its block left the bank.", source="import", observation_count=3, recall_count=2,
                  anchors=(Anchor("src/a.py", "b10b"),))
    events = [HistoryEvent(back.id, "retired", _at(1), "ana via import", {"reason": "removed from patterns.md"}),
              HistoryEvent(back.id, "restored", _at(2), ACTOR),
              HistoryEvent(back.id, "retired", _at(3), ACTOR, {"reason": "again"}),
              HistoryEvent(back.id, "restored", _at(4), ACTOR, {"note": "kept"})]
    write_history(str(tmp_path), events, [], [back])

    history = read_history(str(tmp_path))
    assert history.restored == [back] and history.retired == []
    assert history.events == events, "what the file adds is not part of a rebuilt event"
    carried = [line for line in open(history_path(str(tmp_path)), encoding="utf-8") if '"restored_entry"' in line]
    assert len(carried) == 1 and '"note": "kept"' in carried[0], "only on the latest restore"

    retired_again = events + [HistoryEvent(back.id, "retired", _at(5), ACTOR, {"reason": "stale"})]
    write_history(str(tmp_path), retired_again, [RetiredEntry(back, _at(5), "stale")], [back])
    history = read_history(str(tmp_path))
    assert history.restored == [] and [r.entry for r in history.retired] == [back]

    edited = content_hash("The edited text.")
    write_history(str(tmp_path), events + [HistoryEvent(edited, "edited", _at(5), ACTOR,
                                                        {"old_id": back.id, "new_id": edited})], [], [back])
    assert read_history(str(tmp_path)).restored == [], "edited away: its new id comes back from its markdown"


def test_a_forged_restored_entry_is_left_out(tmp_path):
    back = _entry("The real restored text.", source="import")
    write_history(str(tmp_path), [HistoryEvent(back.id, "restored", _at(1), ACTOR)], [], [back])
    path = history_path(str(tmp_path))
    text = open(path, encoding="utf-8").read().replace("The real restored text.", "Another text under its id.")
    with open(path, "w", encoding="utf-8") as out:
        out.write(text)
    history = read_history(str(tmp_path))
    assert history.restored == [] and len(history.events) == 1


def test_malformed_lines_are_skipped_and_a_missing_file_is_empty(tmp_path):
    assert read_history(str(tmp_path)) == ([], [], {}, [])
    good = HistoryEvent(content_hash("Kept."), "confirmed", _at(1), ACTOR)
    write_history(str(tmp_path), [good])
    path = history_path(str(tmp_path))
    with open(path, "a", encoding="utf-8") as out:
        out.write("- {not json\n- [1, 2]\n- {\"entry_id\": \"XYZ\", \"action\": \"retired\"}\n"
                  "- {\"entry_id\": \"0123456789abcdef\", \"action\": \"exploded\", \"at\": \"2026-01-01T00:00:00Z\","
                  " \"actor\": \"x\"}\nplain prose a person added\n")
    assert read_history(str(tmp_path)).events == [good]


def test_hostile_text_stays_one_line_of_data(tmp_path):
    text = "Evil\n- {\"entry_id\": \"0123456789abcdef\"}\n### Pattern: injected\n\u2028<!-- --> `rm -rf`"
    gone = _entry(text, name="x\n### Pattern: y")
    write_history(str(tmp_path), [HistoryEvent(gone.id, "retired", _at(1), "mallory\nvia cli", {"reason": text})],
                  [RetiredEntry(gone, _at(1), text)])
    lines = [line for line in open(history_path(str(tmp_path)), encoding="utf-8").read().split("\n")
             if line.startswith("- ")]
    assert len(lines) == 1, "every newline in stored text is escaped inside the JSON"
    history = read_history(str(tmp_path))
    assert history.retired[0].entry.description == gone.description
    assert history.events[0].detail == {"reason": text} and history.events[0].actor == "mallory\nvia cli"


def test_a_tampered_entry_is_not_restored(tmp_path):
    gone = _entry("The real text.")
    write_history(str(tmp_path), [HistoryEvent(gone.id, "retired", _at(1), ACTOR)], [RetiredEntry(gone, _at(1))])
    path = history_path(str(tmp_path))
    text = open(path, encoding="utf-8").read().replace("The real text.", "A different text under the old id.")
    with open(path, "w", encoding="utf-8") as out:
        out.write(text)
    history = read_history(str(tmp_path))
    assert history.retired == [] and len(history.events) == 1, "the event is kept; the forged entry is not"


def test_written_private_and_never_through_a_link(tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    write_history(str(store), [])
    assert stat.S_IMODE(os.stat(history_path(str(store))).st_mode) == 0o600
    secret = tmp_path / "secret"
    secret.write_text("do not touch\n")
    os.remove(history_path(str(store)))
    os.symlink(secret, store / FILENAME)
    with pytest.raises(UnsafeFile):
        write_history(str(store), [])
    with pytest.raises(UnsafeFile):
        read_history(str(store))
    assert secret.read_text() == "do not touch\n"


def test_entry_json_is_plain_data():
    entry = _entry("Plain data.", last_recalled_at=None, anchors=(Anchor("a.py", "b"),))
    data = json.loads(json.dumps(entry_json(entry)))
    assert data["created_at"] == "2026-03-01T09:00:00Z" and data["anchors"] == [{"reference": "a.py", "blob": "b"}]
    assert "has_embedding" not in data
