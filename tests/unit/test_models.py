"""EntryDraft validation: a bad draft is rejected with an error naming the offending field."""

from __future__ import annotations

from typing import get_args

import pytest
from pydantic import ValidationError

from memory_core.entries.models import Category, Confidence, Entry, EntryDraft, Source
from memory_core.entries.records import CATEGORIES, CONFIDENCE_RANK, SOURCES
from tests.fakes import T0

VALID = {"name": "Read before write", "description": "Read the file before editing it.", "category": "heuristics"}


def failing_fields(**overrides) -> set:
    with pytest.raises(ValidationError) as info:
        EntryDraft(**{**VALID, **overrides})
    assert all(err["loc"][0] in str(info.value) for err in info.value.errors())
    return {err["loc"][0] for err in info.value.errors()}


def test_valid_draft_has_defaults():
    draft = EntryDraft(**VALID)
    assert (draft.confidence, draft.source, draft.observation_count, draft.keywords) == ("medium", "manual", 1, [])


def test_invalid_category_names_category():
    assert failing_fields(category="tips") == {"category"}


def test_empty_name_names_name():
    assert failing_fields(name="") == {"name"}


def test_blank_description_names_description():
    assert failing_fields(description="   \n\t") == {"description"}


def test_unknown_field_names_it():
    assert failing_fields(colour="blue") == {"colour"}


def test_invalid_confidence_and_observation_count():
    assert failing_fields(confidence="certain") == {"confidence"}
    assert failing_fields(observation_count=0) == {"observation_count"}


def test_keywords_accepted_as_json_array_string():
    draft = EntryDraft(**VALID, keywords='["Parser", "sqlite", " "]')
    assert draft.keywords == ["parser", "sqlite"]


def test_keywords_differing_only_in_case_are_one_keyword():
    # keywords are lower-cased labels, and the field drops duplicates: "FTS5" and "fts5" are the same label
    draft = EntryDraft(**VALID, keywords='["FTS5", "sqlite", "fts5"]')
    assert draft.keywords == ["fts5", "sqlite"]


def test_malformed_keywords_string_names_keywords():
    assert failing_fields(keywords='["unterminated"') == {"keywords"}
    assert failing_fields(keywords=[1, 2]) == {"keywords"}


def test_references_accept_list_and_drop_blanks():
    draft = EntryDraft(**VALID, references=["src/a.py", "", "src/a.py", "docs/b.md"])
    assert draft.references == ["src/a.py", "docs/b.md"]


def test_entry_id_is_the_content_hash_of_the_description():
    a = Entry.from_draft(EntryDraft(**VALID), T0)
    b = EntryDraft(**{**VALID, "description": "  READ the file before   editing it. "})
    assert a.id == b.entry_id
    assert a.created_at == a.updated_at == T0


def test_a_keyword_that_is_a_secret_only_in_lower_case_is_dropped_at_once():
    """Stored keywords are lower case: one kept on the first validation must survive the next (a rebuild)."""
    from memory_core.entries.keywords import clean_keywords

    token = "GHP_" + "a1B2" * 9
    draft = EntryDraft(name="n", description="d", category="patterns", keywords=[token, "wal"])
    assert draft.keywords == ["wal"]
    assert EntryDraft(**draft.model_dump()).keywords == draft.keywords
    assert clean_keywords([token, "wal"]) == ["wal"]


def test_the_values_a_draft_accepts_are_the_ones_the_records_and_the_store_check():
    # The SQLite store revalidates rows against the records' tuples: a value one side accepts, the other must too.
    assert get_args(Source) == SOURCES
    assert sorted(get_args(Category)) == sorted(CATEGORIES)
    assert sorted(get_args(Confidence)) == sorted(CONFIDENCE_RANK)
