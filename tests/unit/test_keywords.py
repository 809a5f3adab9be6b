"""Keyword validation (design C3, spec 001 AC5): lowercase, hyphenated, no generic words, at most 10."""

from __future__ import annotations

import pytest

from memory_core.entries.keywords import clean_keywords

SPEC_STOPWORDS = ("code development software system application implementation feature project function "
                  "method file data error bug fix update change").split()


@pytest.mark.parametrize("word", SPEC_STOPWORDS)
def test_generic_stopwords_are_dropped(word):
    assert clean_keywords([word, "sqlite"]) == ["sqlite"]
    assert clean_keywords([word.upper()]) == []


def test_stopword_inside_a_compound_is_kept():
    assert clean_keywords(["error-handling", "code-review"]) == ["error-handling", "code-review"]


@pytest.mark.parametrize("bad", ['["fts5"', 'sqlite"]', "a,b", "{json}", "x:y", "-leading", "under_score",
                                 "semi;colon", "", "   "])
def test_json_punctuation_and_invalid_characters_are_dropped(bad):
    assert clean_keywords([bad, "fts5"]) == ["fts5"]


def test_lowercases_and_hyphenates_multiword_labels():
    assert clean_keywords(["Content Hash", "  Parser  Error ", "FTS5"]) == ["content-hash", "parser-error", "fts5"]


def test_more_than_three_words_is_dropped():
    assert clean_keywords(["one two three four", "one two three"]) == ["one-two-three"]


def test_keeps_at_most_ten_in_order_without_repeats():
    candidates = ["alpha", "Alpha", "beta"] + [f"term{i}" for i in range(15)]
    kept = clean_keywords(candidates)
    assert kept == ["alpha", "beta"] + [f"term{i}" for i in range(8)]
    assert len(kept) == 10


def test_nothing_valid_gives_empty_list():
    assert clean_keywords(["code", "[", "data"]) == []
