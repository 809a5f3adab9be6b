"""Anchors' regions (issue 24 groundwork): a reference's line window or symbol block, hashed so that an edit
inside it shows and an edit elsewhere in the file does not."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given, strategies as st

from memory_core.anchors.regions import (LINE_WINDOW, Reference, git_blob_id, parse_reference, region_hash,
                                         region_text)

PYTHON = '''import csv


@cache
def parse_row(line):
    """One row."""
    return next(csv.reader([line]))


class Reader:
    def rows(self, text):
        for line in text.splitlines():

            yield parse_row(line)

    def close(self):
        pass
'''

TYPESCRIPT = '''import { x } from "./x";

export const LIMIT = 10;

export function parseRow(line: string): string[] {
  if (line) {
    return line.split(",");
  }
  return [];
}

class Reader {
  rows(text: string) {
    return text.split("\\n");
  }
}
'''


@pytest.mark.parametrize("text, expected", [
    ("src/a.py", Reference("src/a.py")),
    ("src/a.py:40", Reference("src/a.py", 40, 40)),
    ("src/a.py:40-52", Reference("src/a.py", 40, 52)),
    ("src/a.py:52-40", Reference("src/a.py", 52, 52)),
    ("src/a.py#parse_row", Reference("src/a.py", symbol="parse_row")),
    ("src/a.py#Reader.rows", Reference("src/a.py", symbol="Reader.rows")),
    ("src/a.py:0", Reference("src/a.py:0")),
    ("C:/x/a.py", Reference("C:/x/a.py")),
    ("  docs/guide.md  ", Reference("docs/guide.md")),
])
def test_references_are_parsed_into_file_lines_or_symbol(text, expected):
    assert parse_reference(text) == expected


def test_the_blob_id_is_the_one_git_computes(tmp_path):
    content = b"print('hello')\n\x00binary\n"
    (tmp_path / "f").write_bytes(content)
    by_git = subprocess.run(["git", "hash-object", str(tmp_path / "f")], capture_output=True, text=True)
    if by_git.returncode != 0:
        pytest.skip("git is not available here")
    assert git_blob_id(content) == by_git.stdout.strip()


def test_a_python_symbol_is_its_whole_definition_with_decorators():
    block = region_text(parse_reference("src/r.py#parse_row"), PYTHON)
    assert block.splitlines()[0] == "@cache" and block.splitlines()[-1].strip() == "return next(csv.reader([line]))"
    method = region_text(parse_reference("src/r.py#Reader.rows"), PYTHON)
    assert method.splitlines()[0].strip() == "def rows(self, text):" and "yield parse_row(line)" in method
    assert "def close" not in method  # the blank line inside the method does not end it; the next def does
    assert region_text(parse_reference("src/r.py#missing"), PYTHON) is None


def test_a_typescript_symbol_is_its_braced_block():
    block = region_text(parse_reference("src/r.ts#parseRow"), TYPESCRIPT)
    assert block.startswith("export function parseRow") and block.rstrip().endswith("}")
    assert "class Reader" not in block
    assert region_text(parse_reference("src/r.ts#LIMIT"), TYPESCRIPT) == "export const LIMIT = 10;"
    assert "split" in region_text(parse_reference("src/r.ts#Reader.rows"), TYPESCRIPT)
    assert region_text(parse_reference("notes.md#parseRow"), TYPESCRIPT) is None  # no symbols in other files


def test_an_edit_inside_the_region_changes_its_hash_and_one_outside_does_not():
    ref = parse_reference("src/r.py#parse_row")
    before = region_hash(ref, PYTHON)
    assert region_hash(ref, PYTHON.replace("import csv", "import csv, io")) == before
    assert region_hash(ref, PYTHON + "\n\ndef later():\n    pass\n") == before
    assert region_hash(ref, PYTHON.replace("return next(", "return list(")) != before
    assert region_hash(ref, PYTHON.replace("\n", "  \r\n")) == before  # trailing blanks and CRLF do not count


@given(st.lists(st.text(alphabet="abc xyz", max_size=12), min_size=1, max_size=40), st.integers(1, 60))
def test_a_line_region_is_the_window_around_the_line(lines, line):
    text = "\n".join(lines)
    region = region_text(Reference("f.txt", line, line), text)
    if line > len(text.splitlines()):
        assert region is None
        return
    start = max(line - 1 - LINE_WINDOW, 0)
    assert region == "\n".join(text.splitlines()[start:line + LINE_WINDOW])
