"""LocalExtractiveKeywordGenerator: specific labels from the entry's own words (spec 001 AC5), checked on made-up
entries and on every entry of the real knowledge bank, as a first session's import labels them."""

from __future__ import annotations

import statistics

import pytest

from memory_adapters.keywords.extractive_keyword_generator import LocalExtractiveKeywordGenerator
from memory_adapters.keywords.stopwords import is_stopword
from memory_adapters.markdown.knowledge_bank import MarkdownKnowledgeBankReader
from memory_core.policies.keyword_tiers import Tier, TieredKeywords
from memory_core.entries.keywords import GENERIC_WORDS
from memory_core.ranking.legacy import deduplicate
from tests.conftest import shared_fixture
from tests._keyword_cases import ac5_violations

NEVER = {"next", "every", "changed", "always", "use"}
PIN = ("Pin the tokenizer", "Always pin the tokenizer file next to the model weights.",
       "It changed every time we upgraded.", "patterns")


def labels(name: str, description: str, reasoning: str = "", category: str = "patterns") -> list[str]:
    """What the local tier alone stores for an entry (through TieredKeywords, as the importer calls it)."""
    tiers = TieredKeywords([Tier("local", LocalExtractiveKeywordGenerator(), in_process=True)])
    return tiers.generate(name, description, reasoning, category)


def test_the_tokenizer_entry_gets_specific_labels_not_next_every_changed():
    keywords = labels(*PIN)
    assert not set(keywords) & (NEVER | {"model"}), keywords
    assert {"pin", "model-weights"} <= set(keywords)
    assert any(k.startswith("tokenizer") for k in keywords)


def test_identifiers_and_file_names_become_labels():
    keywords = labels("Back up SQLite safely",
                      "Call sqlite3.Connection.backup() instead of copying the file; set busy_timeout first and "
                      "catch ValueError from the helper in hooks/lib/common.sh.")
    assert {"sqlite3-connection-backup", "busy-timeout", "valueerror", "common-sh"} <= set(keywords)
    assert not {"set", "catch", "lib", "set-busy-timeout", "catch-valueerror"} & set(keywords)


def test_a_phrase_the_text_repeats_is_one_hyphenated_label():
    keywords = labels("Cache embeddings by content hash",
                      "Store each vector next to the content hash of the embedded text; when the content hash "
                      "is unchanged, skip the provider call.")
    assert "content-hash" in keywords
    assert "hash" not in keywords and "content" not in keywords


def test_the_title_outranks_a_word_the_body_mentions_once():
    description = "Retry the upload with exponential backoff; log each gateway timeout."
    assert labels("Exponential backoff", description)[0] == "exponential-backoff"
    assert labels("Gateway timeouts", description)[0] == "gateway-timeouts"


def test_variants_of_a_word_give_one_label():
    keywords = labels("Reviewer fatigue", "Each reviewer sees the same reviewers' notes; a reviewer then "
                                          "skims the fatigue report.")
    assert len([k for k in keywords if k.startswith("reviewer")]) == 1


def test_format_labels_links_and_item_numbers_are_not_labels():
    keywords = labels("Worktree discipline", "Making changes in main worktree when a feature worktree exists.",
                      "- Observed in: Feature #002, iter-1, T02 (e.g. https://github.com/acme/tool/issues/7)\n"
                      "- Cost: Had to stash and re-apply in the correct worktree\n"
                      "- Instead: Check `git worktree list` at session start")
    assert "worktree" in keywords[0]
    assert not {"observed", "cost", "instead", "iter-1", "t02", "github", "github-com", "e-g", "https", "main",
                "correct", "making", "changes"} & set(keywords), keywords


def test_text_of_common_words_only_gets_no_labels_rather_than_weak_ones():
    assert LocalExtractiveKeywordGenerator().generate(
        "Better", "We always make it better and never change it again.", "Every time it changed.", "patterns") == []


@pytest.fixture(scope="module")
def bank_labels():
    """Every entry of the real knowledge bank (head) with the labels the local tier alone gives it."""
    bank = shared_fixture("knowledge-bank", "head")
    drafts = [e.to_draft("bank") for e in deduplicate(
        MarkdownKnowledgeBankReader(warn_unknown=False).read(str(bank), "local"))]
    return [(d, labels(d.name, d.description, d.reasoning, d.category)) for d in drafts]


def test_every_real_bank_entry_gets_three_to_ten_labels_satisfying_ac5(bank_labels):
    assert len(bank_labels) > 200
    problems = {d.name: ac5_violations(k, d.description, d.reasoning) for d, k in bank_labels}
    assert {name: p for name, p in problems.items() if p} == {}
    counts = [len(k) for _, k in bank_labels]
    assert 4 <= statistics.median(counts) <= 9, "labels a reader can scan: neither three nor always ten"


def test_no_real_bank_label_is_a_stopword_or_generic_word(bank_labels):
    every = {k for _, keywords in bank_labels for k in keywords}
    assert not every & NEVER
    assert sorted(k for k in every if is_stopword(k) or k in GENERIC_WORDS) == []


def test_real_bank_labels_include_phrases_and_identifiers(bank_labels):
    every = [k for _, keywords in bank_labels for k in keywords]
    assert sum("-" in k for k in every) / len(every) > 0.3, "multi-word terms, not only single words"
    assert {"claude-md", "valueerror", "fts5", "circuit-breaker"} <= set(every)
