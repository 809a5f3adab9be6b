"""The check before use (issue 24): only this project's anchors are judged, each cited file is read once per
check and not at all when the cache vouches for it, the notes read as one line, and a deadline stops the check
with the rest counted."""

from __future__ import annotations

from datetime import datetime, timezone

from memory_core.anchors.anchor import Anchor
from memory_core.anchors.states import CHANGED, CURRENT, MISSING, MOVED, AnchorState
from memory_core.entries.records import Entry
from memory_core.ports.anchor_cache import AnchorCache
from memory_core.ports.code_files import StatCodeFiles
from memory_core.session.deadline import Deadline
from memory_core.usecases.check_anchors import CheckAnchors, anchors_for, every_missing, notes
from tests.fake_code_files import FakeCodeFiles, MemoryAnchorCache

HERE, ELSEWHERE = "git:" + "a" * 40, "git:" + "b" * 40
SOURCE = b"def parse_row(line):\n    return line.split(',')\n\n\ndef other():\n    pass\n"
NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)


def entry(entry_id: str, anchors) -> Entry:
    return Entry(id=entry_id, name=entry_id, description="d", category="patterns", created_at=NOW, updated_at=NOW,
                 references=[a.reference for a in anchors], anchors=tuple(anchors))


class FakeTicker:
    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    def wait(self, event, timeout):  # pragma: no cover - not waited on here
        return event.is_set()


def tree() -> FakeCodeFiles:
    return FakeCodeFiles({"src/keep.py": SOURCE, "src/old.py": SOURCE + b"#o\n", "src/gone.py": SOURCE + b"#g\n",
                          "src/rewrite.py": SOURCE + b"#r\n"})


def test_the_fakes_are_the_ports():
    assert isinstance(FakeCodeFiles({}), StatCodeFiles)
    assert isinstance(MemoryAnchorCache(), AnchorCache)


def test_each_state_and_the_one_line_note():
    files = tree()
    anchors = {path: anchors_for([path], files, HERE)[0] for path in files.files}
    files.files["src/new.py"] = files.files.pop("src/old.py")
    files.renames["src/old.py"] = "src/new.py"
    del files.files["src/gone.py"]
    files.write("src/rewrite.py", b"something else\n")
    entries = [entry(path.split("/")[1][:-3], [anchor]) for path, anchor in anchors.items()]
    states = CheckAnchors(files, MemoryAnchorCache()).states(entries, HERE)
    assert {k: [s.state for s in v] for k, v in states.items()} == {
        "keep": [CURRENT], "old": [MOVED], "gone": [MISSING], "rewrite": [CHANGED]}
    assert notes(states["old"]) == "cites src/old.py, now src/new.py"
    assert notes(states["gone"]) == "cites src/gone.py, which no longer exists"
    assert notes(states["rewrite"]) == "src/rewrite.py changed since this was learned"
    assert notes(states["keep"]) == ""
    assert every_missing(states["gone"]) and not every_missing(states["old"])


def test_only_anchors_taken_in_this_project_are_judged():
    files = tree()
    mine = anchors_for(["src/keep.py"], files, HERE)[0]
    theirs = Anchor("src/gone.py", "0" * 40, project=ELSEWHERE)
    states = CheckAnchors(files).states([entry("e1", [mine, theirs]), entry("e2", [theirs])], HERE)
    assert states == {"e1": [AnchorState("src/keep.py", CURRENT)]}


def test_notes_join_several_citations_once_each():
    line = notes([AnchorState("src/a.py:3", CHANGED), AnchorState("src/a.py#f", CHANGED),
                  AnchorState("src/b.py", MISSING), AnchorState("src/c.py", CURRENT)])
    assert line == "src/a.py changed since this was learned; cites src/b.py, which no longer exists"


def test_an_edit_elsewhere_keeps_a_symbol_citation_current_and_the_cache_keeps_its_region():
    files = tree()
    anchor = anchors_for(["src/keep.py#parse_row"], files, HERE)[0]
    files.write("src/keep.py", SOURCE + b"\n\ndef added():\n    pass\n")
    cache = MemoryAnchorCache()
    check = CheckAnchors(files, cache)
    assert check.states([entry("e", [anchor])], HERE)["e"][0].state == CURRENT
    files.reads.clear()
    assert check.states([entry("e", [anchor])], HERE)["e"][0].state == CURRENT
    assert files.reads == []  # blob and region came from the cache


def test_unchanged_files_are_not_read_again_and_a_changed_one_is():
    files = tree()
    anchors = [anchors_for([path], files, HERE)[0] for path in sorted(files.files)]
    entries = [entry(f"e{i}", [a]) for i, a in enumerate(anchors)]
    cache = MemoryAnchorCache()
    files.reads.clear()
    CheckAnchors(files, cache).states(entries, HERE)
    assert sorted(files.reads) == sorted(files.files)
    files.reads.clear()
    files.write("src/rewrite.py", b"new\n")
    states = CheckAnchors(files, cache).states(entries, HERE)
    assert files.reads == ["src/rewrite.py"]
    assert [s.state for e in entries for s in states[e.id]].count(CHANGED) == 1


def test_a_file_cited_by_many_entries_is_read_once_per_check():
    files = tree()
    anchor = anchors_for(["src/keep.py"], files, HERE)[0]
    files.reads.clear()
    CheckAnchors(files).states([entry(f"e{i}", [anchor]) for i in range(5)], HERE)
    assert files.reads == ["src/keep.py"]


def test_a_file_that_is_there_but_unreadable_is_not_judged():
    files = tree()
    anchor = anchors_for(["src/keep.py"], files, HERE)[0]
    files.read = lambda path: None  # too big, say: identity yes, content no
    assert CheckAnchors(files).states([entry("e", [anchor])], HERE) == {}


def test_the_deadline_stops_the_check_and_counts_what_it_left():
    files = tree()
    anchor = anchors_for(["src/keep.py"], files, HERE)[0]
    ticker = FakeTicker()
    deadline = Deadline.after(ticker, 1.0)
    original = files.read

    def slow_read(path):
        ticker.now += 2.0  # this read used up the time
        return original(path)

    files.read = slow_read
    other = anchors_for(["src/old.py"], FakeCodeFiles({"src/old.py": SOURCE + b"#o\n"}), HERE)[0]
    report = CheckAnchors(files).check([entry("e1", [anchor]), entry("e2", [other])], HERE, deadline)
    assert list(report.states) == ["e1"] and report.unchecked == 1


def test_anchors_for_skips_absent_files_and_repeats():
    files = tree()
    anchors = anchors_for(["src/keep.py", "src/keep.py", "src/nope.py", "src/old.py:2"], files, HERE, "c" * 40)
    assert [a.reference for a in anchors] == ["src/keep.py", "src/old.py:2"]
    assert all(a.project == HERE and a.commit == "c" * 40 for a in anchors)
    assert anchors[1].region is not None
