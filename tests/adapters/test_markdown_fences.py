"""Which `### ` lines of a knowledge-bank file are entries: fenced code holds examples, but a fence that is never
closed hides nothing (issue 21, doorway 11)."""

from __future__ import annotations

from datetime import datetime, timezone

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from memory_adapters.markdown.audit_trail import upsert_block
from memory_adapters.markdown.knowledge_bank import parse_block, split_blocks
from memory_core.entries.models import EntryDraft
from memory_core.entries.records import Entry


def _names(text: str) -> list[str]:
    return [block[0] for block in split_blocks(text)]


def test_headings_inside_closed_fences_are_not_entries():
    text = "### A\nx\n```md\n### not B\n```\n### C\n~~~~\n### not D\n~~~~~\n### E\n"
    assert _names(text) == ["### A", "### C", "### E"]


def test_a_fence_never_closed_hides_nothing():
    assert _names("### A\n```python\nx = 1\n### B\ny\n### C\n") == ["### A", "### B", "### C"]


def test_a_closing_fence_must_be_as_long_and_of_the_same_character():
    text = "### A\n````\n### not B\n```\n~~~~\n### not C\n````\n### D\n"
    assert _names(text) == ["### A", "### D"]


def test_ever_shorter_unclosed_fences_hide_nothing():
    lines = ["~" * k for k in range(400, 2, -1)]
    text = "### A\n" + "\n".join(lines) + "\n### B\n"
    assert _names(text) == ["### A", "### B"]


def test_inline_code_with_backticks_is_no_fence():
    assert _names("### A\n```a`b```\n### B\n```\n") == ["### A", "### B"]


def _stored(name: str, description: str) -> Entry:
    return Entry.from_draft(EntryDraft(name=name, description=description, category="patterns",
                                       source_project="proj"), datetime(2026, 3, 1, tzinfo=timezone.utc))


def test_code_fences_in_descriptions_never_hide_the_entries_after_them():
    """A description whose fence is left open is written with the fence escaped (a reader that skips fenced code
    would otherwise skip every entry up to the next fence); a closed fence is written as is and keeps a `### `
    line inside it (escaped anyway) from ending the entry."""
    unclosed = _stored("Open fence", "Start a block with:\n```python\nx = 1")
    closed = _stored("Closed fence", "Like this:\n```\n### not a heading\n- not a bullet\n```\nDone.")
    after = _stored("After them", "Read after the fenced descriptions.")
    text = "# Patterns\n\n"
    for entry in (unclosed, closed, after):
        text = upsert_block(text, entry, global_format=False)

    assert "\n```\n### not a heading" not in text and "\n```python\n" not in text
    assert "\n```\n\\### not a heading" in text, "a closed fence is written as is"
    read = [parse_block(block, "patterns", 0, "local") for block in split_blocks(text)]
    assert [(k.entry_id, k.name, k.description) for k in read] == [
        (e.id, e.name, e.description) for e in (unclosed, closed, after)]


FENCE_LINES = st.sampled_from(["```", "```python", "  ```python", "   ~~~", "    ```", "~~~~", "\\```", "\\  ```",
                               "\\\\  ~~~", " \\```", "x = 1", "\\", "a\\b", "### h", "- b", "Start"])


def test_an_indented_open_fence_reads_back_without_a_stray_backslash():
    entry = _stored("Indented fence", "Start\n  ```python\nx = 1")
    text = upsert_block("# Patterns\n\n", entry, global_format=False)

    assert [parse_block(b, "patterns", 0, "local").description for b in split_blocks(text)] == [entry.description]


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(st.one_of(FENCE_LINES, st.text(alphabet="`~\\ #-x", max_size=8)), min_size=1, max_size=8))
def test_descriptions_with_fences_and_backslashes_round_trip(lines):
    description = "\n".join(lines)
    try:
        entry = _stored("Fenced", description)
    except ValidationError:
        assume(False)
    after = _stored("After", "Read after it.")
    text = upsert_block(upsert_block("# Patterns\n\n", entry, global_format=False), after, global_format=False)

    read = [parse_block(block, "patterns", 0, "local") for block in split_blocks(text)]
    assert [(k.entry_id, k.description) for k in read] == [(entry.id, entry.description), (after.id, after.description)]
