"""The request rules every door shares (issue 13): limit, query, category, and pydantic errors in plain words."""

from __future__ import annotations

from typing import Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memory_core.errors import InvalidEntry
from memory_core.entries.models import CATEGORIES, EntryDraft
from memory_core.entries.request_checks import (
    MAX_IDS, MAX_LIMIT, check_category, check_ids, check_limit, check_query, plain_error, plain_errors,
)


@given(st.integers(min_value=-10**6, max_value=10**6), st.integers(min_value=1, max_value=1000))
def test_a_limit_is_kept_exactly_when_it_lies_in_bounds(limit, maximum):
    if 1 <= limit <= maximum:
        assert check_limit(limit, maximum) == limit
    else:
        with pytest.raises(InvalidEntry) as caught:
            check_limit(limit, maximum)
        assert caught.value.field == "limit"
        assert caught.value.message == ("must be at least 1" if limit < 1 else f"must be at most {maximum}")


def test_the_default_maximum_is_the_shared_one():
    assert check_limit(MAX_LIMIT) == MAX_LIMIT
    with pytest.raises(InvalidEntry):
        check_limit(MAX_LIMIT + 1)


@pytest.mark.parametrize("limit", [True, 5.0, "5", None], ids=["bool", "float", "text", "none"])
def test_a_limit_that_is_not_a_whole_number_is_refused(limit):
    with pytest.raises(InvalidEntry) as caught:
        check_limit(limit, MAX_LIMIT)
    assert (caught.value.field, caught.value.message) == ("limit", "must be a whole number")


@given(st.text())
def test_a_query_is_refused_exactly_when_it_is_blank(text):
    if text.strip():
        assert check_query(text) == text.strip()
    else:
        with pytest.raises(InvalidEntry) as caught:
            check_query(text)
        assert (caught.value.field, caught.value.message) == ("query", "must not be empty")


def test_a_query_that_is_not_text_is_refused():
    with pytest.raises(InvalidEntry) as caught:
        check_query(None)
    assert caught.value.field == "query"


def test_ids_are_a_list_of_one_to_twenty_texts_kept_in_order_each_once():
    assert check_ids([" 0123456789abcdef", "abcd", "0123456789abcdef "]) == ["0123456789abcdef", "abcd"]
    assert len(check_ids([f"{n:04x}" for n in range(MAX_IDS)])) == MAX_IDS
    for bad, message in [([], "must not be empty"), ("0123456789abcdef", "must be a list of entry ids"),
                         ([f"{n:04x}" for n in range(MAX_IDS + 1)], f"must have at most {MAX_IDS} items"),
                         (["abcd", 7], "must be text"), (None, "must be a list of entry ids")]:
        with pytest.raises(InvalidEntry) as caught:
            check_ids(bad)
        assert (caught.value.field, caught.value.message) == ("ids", message), bad


def test_a_category_filter_is_one_of_the_categories_or_none():
    assert [check_category(c) for c in CATEGORIES] == list(CATEGORIES)
    assert check_category(None) is None
    with pytest.raises(InvalidEntry) as caught:
        check_category("tips")
    assert caught.value.field == "category"
    assert all(c in caught.value.message for c in CATEGORIES)


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1)
    limit: int = Field(default=10, ge=1, le=MAX_LIMIT)
    kind: Literal["a", "b"] = "a"
    tags: list[str] = Field(default_factory=list, max_length=2)


def _problems(data: dict) -> dict[str, str]:
    with pytest.raises(ValidationError) as caught:
        Request.model_validate(data)
    return {p.field: p.message for p in plain_errors(caught.value)}


@pytest.mark.parametrize(
    "data, field, message",
    [
        ({}, "query", "required but missing"),
        ({"query": ""}, "query", "must not be empty"),
        ({"query": "x", "limit": 0}, "limit", "must be at least 1"),
        ({"query": "x", "limit": MAX_LIMIT + 1}, "limit", f"must be at most {MAX_LIMIT}"),
        ({"query": "x", "limit": "many"}, "limit", "must be a whole number"),
        ({"query": "x", "kind": "c"}, "kind", "must be one of a, b"),
        ({"query": "x", "tags": ["1", "2", "3"]}, "tags", "must have at most 2 items"),
        ({"query": 7}, "query", "must be text"),
        ({"query": "x", "surprise": 1}, "surprise", "unknown field"),
    ],
    ids=["missing", "empty", "below", "above", "not-a-number", "not-a-choice", "too-many", "not-text", "unknown"],
)
def test_pydantic_errors_read_as_one_plain_line_per_field(data, field, message):
    assert _problems(data)[field] == message


def test_every_failing_field_is_reported_and_no_input_or_url_is_echoed():
    secret_value = "hunter2-limit-value"
    problems = _problems({"limit": secret_value, "kind": "zzz"})

    assert set(problems) == {"query", "limit", "kind"}
    text = " ".join(problems.values())
    assert "http" not in text and secret_value not in text and "input" not in text.lower()


def test_an_entry_draft_error_names_the_field_with_the_validators_own_words():
    with pytest.raises(ValidationError) as caught:
        EntryDraft.model_validate({"name": "n", "description": "d", "category": "patterns", "keywords": 5})
    problem = plain_error(caught.value)

    assert problem.field == "keywords"
    assert not problem.message.startswith("Value error"), problem.message
    assert "keywords" in problem.message
