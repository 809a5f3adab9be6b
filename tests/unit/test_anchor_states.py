"""Anchors checked against today's code (issue 24 groundwork): renamed, deleted and rewritten files are told
apart, an edit elsewhere in a file leaves a line or symbol citation current, and each state reads as one line."""

from __future__ import annotations

from typing import Optional

from memory_core.anchors.states import CHANGED, CURRENT, MISSING, MOVED
from memory_core.usecases.anchoring import anchor_now, check_anchor
from memory_core.ports.code_files import CodeFiles

SOURCE = b"def parse_row(line):\n    return line.split(',')\n\n\ndef other():\n    pass\n"


class FakeCodeFiles:
    """A working tree in a dict, and the renames version control would report."""

    def __init__(self, files: dict[str, bytes], renames: Optional[dict[str, str]] = None) -> None:
        self.files, self.renames = dict(files), dict(renames or {})

    def read(self, path: str) -> Optional[bytes]:
        return self.files.get(path)

    def renamed_to(self, path: str, blob: str = "", commit: str = "") -> Optional[str]:
        return self.renames.get(path)


def test_the_fake_is_a_code_files_port():
    assert isinstance(FakeCodeFiles({}), CodeFiles)


def test_each_kind_of_change_gets_its_state_and_its_line():
    before = FakeCodeFiles({"src/csv_reader.py": SOURCE, "src/old_name.py": SOURCE, "src/gone.py": SOURCE,
                            "src/untouched.py": SOURCE})
    anchors = {path: anchor_now(path, before) for path in before.files}
    after = FakeCodeFiles({"src/csv_reader.py": SOURCE.replace(b"split(',')", b"split(';')"),
                           "src/sniffing.py": SOURCE, "src/untouched.py": SOURCE},
                          renames={"src/old_name.py": "src/sniffing.py"})
    states = {path: check_anchor(anchor, after) for path, anchor in anchors.items()}
    assert {p: s.state for p, s in states.items()} == {
        "src/csv_reader.py": CHANGED, "src/old_name.py": MOVED, "src/gone.py": MISSING, "src/untouched.py": CURRENT}
    assert states["src/old_name.py"].note() == "cites src/old_name.py, now src/sniffing.py"
    assert states["src/gone.py"].note() == "cites src/gone.py, which no longer exists"
    assert states["src/csv_reader.py"].note() == "src/csv_reader.py changed since this was learned"
    assert states["src/untouched.py"].note() == ""


def test_a_symbol_citation_stays_current_when_the_file_changes_elsewhere():
    tree = FakeCodeFiles({"src/r.py": SOURCE})
    anchor = anchor_now("src/r.py#parse_row", tree)
    tree.files["src/r.py"] = SOURCE.replace(b"    pass", b"    return 42")
    assert check_anchor(anchor, tree).state == CURRENT
    tree.files["src/r.py"] = SOURCE.replace(b"split(',')", b"split()")
    assert check_anchor(anchor, tree).state == CHANGED
    assert check_anchor(anchor, FakeCodeFiles({})).state == MISSING


def test_a_file_absent_when_written_has_no_anchor():
    assert anchor_now("src/not_yet.py", FakeCodeFiles({})) is None
