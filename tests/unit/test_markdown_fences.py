"""Which `### ` lines of a knowledge-bank file are entries: fenced code holds examples, but a fence that is never
closed hides nothing (issue 21, doorway 11)."""

from __future__ import annotations

from memory_adapters.markdown_knowledge_bank import split_blocks


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
