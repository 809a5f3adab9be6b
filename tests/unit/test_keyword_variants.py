"""Morphological variants (spec 001 AC5): a keyword counts as grounded when it is a variant of a word of the
description or reasoning (pin/pinning, parse/parser), and unrelated words that merely look alike do not."""

from __future__ import annotations

import pytest

from memory_core.policies.keyword_tiers import TieredKeywords, grounded, stem

VARIANT_FAMILIES = [
    "pin pins pinning pinned",
    "parse parses parsing parser parsers parsed",
    "cache caches caching cached",
    "retry retries retried retrying",
    "embed embeds embedding embeddings embedded embedder",
    "validate validates validating validated validation validator",
    "tokenize tokenizer tokenizing tokenization",
    "migrate migrates migrating migration migrations",
    "write writes writing writer",
    "create creating created creation",
    "query queries querying queried",
    "index indexes indexing indexed",
    "control controlled controlling controller",
    "run runs running runner",
    "review reviews reviewed reviewing reviewer reviewers",
    "serialize serializer serialization",
    "configure configured configuration",
]

LOOKALIKES = [
    ("pin", "pine"), ("pinning", "pining"), ("pinned", "pined"), ("note", "not"), ("hope", "hop"),
    ("letter", "let"), ("better", "bet"), ("corner", "corn"), ("matter", "mat"), ("hammer", "ham"),
    ("manner", "man"), ("summer", "sum"), ("docker", "dock"), ("proper", "prop"), ("user", "us"),
    ("sing", "sin"), ("rate", "rat"), ("cute", "cut"), ("plan", "plane"), ("state", "station"),
    ("general", "generate"), ("caching", "catch"), ("cache", "cash"), ("parse", "par"), ("retry", "retro"),
]


@pytest.mark.parametrize("family", VARIANT_FAMILIES, ids=lambda f: f.split()[0])
def test_variants_of_one_word_share_a_stem(family):
    words = family.split()
    assert len({stem(w) for w in words}) == 1, {w: stem(w) for w in words}


@pytest.mark.parametrize("family", VARIANT_FAMILIES, ids=lambda f: f.split()[0])
def test_each_variant_is_grounded_by_each_other(family):
    words = family.split()
    for keyword in words:
        for word in words:
            assert grounded(keyword, f"Notes: we {word} it here."), (keyword, word)


@pytest.mark.parametrize("first, second", LOOKALIKES)
def test_unrelated_lookalikes_do_not_collide(first, second):
    assert stem(first) != stem(second)
    for keyword, word in ((first, second), (second, first)):
        if keyword not in word:  # AC5 counts a plain substring (pin in pine) whatever the stems say
            assert not grounded(keyword, f"Only {word} is said here."), (keyword, word)


@pytest.mark.parametrize("keyword", ["parse", "parsing", "parser", "parsers", "parsed"])
def test_grounded_accepts_morphological_variants(keyword):
    assert grounded(keyword, "We are parsing the input")
    assert grounded(keyword, "A small parser for configs")


# (keyword, a text that grounds it): a variant of one of its words, or a hyphenated keyword whose every part is
GROUNDED = [
    ("error-handling", "Add error handling to the parser"),
    ("error-handling", "error-handling belongs at the boundary"),
    ("parser-errors", "The parsing error was swallowed"),
    ("config-files", "We read several config files"),
    ("pinning", "Always pin the tokenizer file next to the model weights."),
    ("pinned-tokenizer", "Always pin the tokenizer file next to the model weights."),
    ("cached-responses", "We cache responses for an hour."),
    ("retries", "Retry once with backoff."),
    ("parse-failure", "The parser raises ParseFailure on a malformed heading."),
    ("busy-timeout", "Set busy_timeout on every connection."),
]
# (keyword, a text that does not): the word is absent, only looks alike, or one part of it is missing
NOT_GROUNDED = [
    ("kubernetes", "We are parsing the input"),
    ("parser-kubernetes", "The parsing error was swallowed"),
    ("helm-charts", "Deploy with care"),
    ("pine", "Always pin the tokenizer file."),
    ("cash", "We cache responses for an hour."),
    ("parse-success", "The parser raises ParseFailure on a malformed heading."),
]


@pytest.mark.parametrize("keyword, text", GROUNDED)
def test_grounded_accepts_variants_hyphenated_keywords_and_identifier_parts(keyword, text):
    assert grounded(keyword, text)


@pytest.mark.parametrize("keyword, text", NOT_GROUNDED)
def test_grounded_rejects_lookalikes_absent_words_and_missing_parts(keyword, text):
    assert not grounded(keyword, text)


def test_the_writers_own_pinning_is_accepted_for_a_text_that_says_pin():
    """The writer supplied `pinning` for an entry saying "pin": a variant, so the supplied labels are kept."""
    keywords = TieredKeywords([]).generate(
        "Pin the tokenizer", "Always pin the tokenizer file next to the model weights.", "", "patterns",
        supplied=["pinning", "tokenizer", "model-weights"])
    assert keywords == ["pinning", "tokenizer", "model-weights"]
