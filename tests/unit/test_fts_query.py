"""FTS5 query sanitising (spec 004): raw context text must never be a syntax error in MATCH."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_core.ranking.fts_query import sanitise_fts_query
from tests._fts5 import fts5_table

REALISTIC = ("memory-semantic: Semantic memory with FTS5 & embeddings (v2.0). Phase: design. "
             "Files: src/memory_core/ranking/fts_query.py tests/unit/test_fts_query.py docs/adr/0001-use-sqlite.md")


@pytest.fixture(scope="module")
def fts():
    with fts5_table("x", [("semantic memory search",), ("parser for markdown files",), ("deployment notes",),
                          ("not near and or",), ("design phase review",)]) as conn:
        yield conn


def match(conn, query):
    return [row[0] for row in conn.execute("SELECT x FROM t WHERE t MATCH ? ORDER BY rowid", (query,))]


def test_spec_example():
    assert sanitise_fts_query("memory-semantic search/parser") == "memory OR semantic OR search OR parser"


def test_realistic_context_becomes_a_valid_or_query(fts):
    with pytest.raises(sqlite3.OperationalError):  # precondition: the raw text is hostile to MATCH
        match(fts, REALISTIC)
    query = sanitise_fts_query(REALISTIC)
    assert query is not None
    terms = query.split(" OR ")
    assert all(t.isalnum() and t == t.lower() for t in terms)
    assert {"memory", "semantic", "design", "py"} <= set(terms)
    assert not {"phase", "files"} & set(terms)  # the context-query labels would match every entry
    assert "phase:" not in query and "." not in query and "-" not in query
    assert set(match(fts, query)) >= {"semantic memory search", "design phase review"}


@pytest.mark.parametrize("text", [None, "", "   ", "... --- /// : ; ()", "\"'*^+"])
def test_empty_or_punctuation_only_gives_none(text):
    assert sanitise_fts_query(text) is None


def test_repeated_words_appear_once():
    assert sanitise_fts_query("parser Parser PARSER file") == "parser OR file"


@pytest.mark.parametrize("text", ["NOT this", "parser AND NOT deployment", "NEAR(semantic memory)",
                                  "a OR b AND", "NOT", "NEAR"])
def test_uppercase_operator_words_are_not_operators(fts, text):
    query = sanitise_fts_query(text)
    if query is None:
        return
    for op in ("AND", "NOT", "NEAR"):
        assert op not in query.split()
    match(fts, query)  # must not raise


def test_not_as_a_word_matches_text_containing_it(fts):
    query = sanitise_fts_query("NOT")
    assert query is not None and "not near and or" in match(fts, query)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=120))
def test_any_text_gives_none_or_an_accepted_query(fts, text):
    query = sanitise_fts_query(text)
    if query is None:
        return
    assert query.strip() == query and query
    match(fts, query)  # sqlite3.OperationalError here is the bug this guards against


@settings(max_examples=80, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("aZ9 .-:/\"'()*^+{}[],;_&|\\\n\t")), max_size=60))
def test_punctuation_heavy_text_is_accepted(fts, text):
    query = sanitise_fts_query(text)
    if query is not None:
        match(fts, query)
