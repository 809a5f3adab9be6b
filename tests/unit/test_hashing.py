"""Content hash (spec 001 D1): SHA-256 of the whitespace/case-normalised description, first 16 hex chars."""

from __future__ import annotations

import hashlib
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from memory_core.entries.hashing import content_hash

WORDS = st.lists(st.from_regex(r"[a-z][a-z0-9]{0,8}", fullmatch=True), min_size=1, max_size=8)
SEPARATORS = st.lists(st.sampled_from([" ", "  ", "\t", "\n", " \n\t "]), min_size=8, max_size=8)


def spec_hash(description: str) -> str:
    return hashlib.sha256(" ".join(description.lower().strip().split()).encode("utf-8")).hexdigest()[:16]


def test_matches_the_formula_of_the_spec():
    text = "Making changes in main worktree when a feature worktree exists."
    assert content_hash(text) == spec_hash(text)
    assert content_hash(text) == hashlib.sha256(text.lower().encode()).hexdigest()[:16]


def test_case_and_whitespace_do_not_change_the_hash():
    assert content_hash("  Use  FTS5\tfor\nkeyword search ") == content_hash("use fts5 for keyword search")


def test_different_descriptions_have_different_hashes():
    assert content_hash("parse the actual file") != content_hash("parse the assumed file")


@settings(max_examples=60, deadline=None)
@given(words=WORDS, seps=SEPARATORS, upper=st.lists(st.booleans(), min_size=8, max_size=8),
       lead=st.sampled_from(["", " ", "\n\t"]), trail=st.sampled_from(["", " ", "\n"]))
def test_normalisation_invariant(words, seps, upper, lead, trail):
    canonical = " ".join(words)
    noisy = lead + "".join(
        (w.upper() if upper[i] else w) + (seps[i] if i < len(words) - 1 else "") for i, w in enumerate(words)
    ) + trail
    assert content_hash(noisy) == content_hash(canonical)


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=200))
def test_hash_is_16_lowercase_hex_chars(text):
    digest = content_hash(text)
    assert re.fullmatch(r"[0-9a-f]{16}", digest)
    assert digest == spec_hash(text)


@settings(max_examples=60, deadline=None)
@given(a=WORDS, b=WORDS)
def test_distinct_normalised_texts_give_distinct_hashes(a, b):
    if " ".join(a) != " ".join(b):
        assert content_hash(" ".join(a)) != content_hash(" ".join(b))
