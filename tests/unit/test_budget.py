"""fit_to_budget: shorten the longest descriptions first (never below 160 characters), drop the last-ranked
entries only when every description is already short, and fit whenever that is possible."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Sequence

from hypothesis import example, given, settings
from hypothesis import strategies as st

from memory_core.ranking.budget import ELLIPSIS, MIN_DESCRIPTION, fit_to_budget
from memory_core.entries.hashing import content_hash
from memory_core.entries.models import Entry

NOW = datetime(2024, 6, 1, tzinfo=timezone.utc)
HEADER = "## Memory\n\n*Memory: diagnostic*\n\n> fence\n"
WORDS = ["parser", "fixture", "schema", "a", "review", "iteration", "transaction", "to", "markdown", "x" * 30]


def make_entry(n: int, description: str) -> Entry:
    return Entry(id=content_hash(description + str(n)), name=f"Entry {n}", description=description,
                 category="patterns", created_at=NOW, updated_at=NOW)


def render_entry(entry: Entry) -> str:
    return f"### {entry.name}\n{entry.description}\n- Observation count: 1\n- Confidence: medium"


def render(items: Sequence[Entry]) -> str:
    return HEADER + "\n\n".join(render_entry(e) for e in items) + "\n---\n"


def fit(items: Sequence[Entry], max_chars: int) -> list[Entry]:
    return fit_to_budget(items, lambda e: e, lambda _, e: e, render, max_chars, lambda e: len(render_entry(e)) + 2)


def text_of(length: int, seed: int, spaced: bool) -> str:
    if not spaced:
        return ("abcdefghij" * (length // 10 + 1))[:length]
    words, n = [], 0
    while len(" ".join(words)) < length:
        words.append(WORDS[(seed + n) % len(WORDS)])
        n += 1
    return " ".join(words)[:length].strip() or "x"


ENTRIES = st.lists(st.tuples(st.integers(1, 3000), st.booleans()), min_size=1, max_size=12).map(
    lambda specs: [make_entry(n, text_of(length, n, spaced)) for n, (length, spaced) in enumerate(specs)])


def minimal_length(items: Sequence[Entry]) -> int:
    """The block length with every description cut to 160 characters: what shortening alone can reach."""
    return len(render([e.with_changes(description=e.description[:MIN_DESCRIPTION]) for e in items]))


def check(items: list[Entry], max_chars: int) -> list[Entry]:
    result = fit(items, max_chars)
    if max_chars <= 0:
        assert result == items, "no budget: nothing changes"
        return result
    names = [e.name for e in result]
    assert names == [e.name for e in items[:len(result)]], "only the last-ranked entries are dropped"
    if len(render(items)) <= max_chars:
        assert result == items, "a block that fits is left alone"
    if result:
        assert len(render(result)) <= max_chars, "the result fits whenever it holds anything"
    if minimal_length(items) <= max_chars:
        assert len(result) == len(items), "shortening alone was enough, so no entry is dropped"
    if len(result) < len(items):
        assert all(len(e.description) <= MIN_DESCRIPTION for e in result), \
            "entries are dropped only once every kept description is short"
    for before, after in zip(items, result):
        if after.description != before.description:
            assert after.description.endswith(ELLIPSIS)
            assert before.description.startswith(after.description[:-1].rstrip())
            assert len(after.description) < len(before.description)
    return result


@settings(max_examples=200, deadline=None)
@given(items=ENTRIES, max_chars=st.integers(0, 20_000))
def test_fit_to_budget_properties(items, max_chars):
    check(items, max_chars)


@settings(max_examples=200, deadline=None)
@given(items=ENTRIES, slack=st.integers(0, 400))
def test_budgets_that_shortening_can_meet_never_drop_an_entry(items, slack):
    max_chars = minimal_length(items) + slack
    result = check(items, max_chars)
    assert len(result) == len(items)


@settings(max_examples=200, deadline=None)
@given(items=ENTRIES, max_chars=st.integers(1, 20_000))
@example(items=[make_entry(0, text_of(3000, 0, True))], max_chars=len(HEADER) + 300)
# A 301-character description whose only space is at 100: cut back to that space, it keeps 101 characters.
@example(items=[make_entry(0, "a" * 100 + " " + "b" * 200)], max_chars=len(render([make_entry(0, "a" * 100 + "…")])))
def test_descriptions_are_never_shortened_below_160_characters(items, max_chars):
    result = fit(items, max_chars)
    for before, after in zip(items, result):
        if after.description != before.description:
            assert len(after.description) >= MIN_DESCRIPTION, (len(after.description), after.description)


def test_longest_description_is_shortened_first():
    long, medium, short = make_entry(0, text_of(2000, 0, True)), make_entry(1, text_of(600, 1, True)), \
        make_entry(2, text_of(100, 2, True))
    budget = len(render([long, medium, short])) - 500
    result = fit([long, medium, short], budget)
    assert [e.name for e in result] == ["Entry 0", "Entry 1", "Entry 2"]
    assert result[0].description.endswith(ELLIPSIS)
    assert result[1].description == medium.description and result[2].description == short.description
    assert len(render(result)) <= budget


def test_zero_or_negative_budget_means_no_limit():
    items = [make_entry(n, text_of(5000, n, True)) for n in range(3)]
    assert fit(items, 0) == items
    assert fit(items, -1) == items


def test_a_budget_nothing_fits_in_gives_an_empty_block():
    items = [make_entry(n, text_of(1000, n, True)) for n in range(3)]
    assert fit(items, 10) == []
