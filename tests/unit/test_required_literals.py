"""Secret patterns are ruled out by a substring test before they are compiled (issue 21, item 7): the strings
`required_literals` proves for a pattern occur in every text it matches, and a text without them is left as it
is, so ordinary prose costs a session start no pattern compile while every token is still redacted."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_core.safety.redaction import redact_secrets
from memory_core.safety.required_literals import any_required, required
from memory_core.safety.secret_patterns import _TOKEN_SHAPES, REDACTED, VENDOR_TOKEN, LazyPattern


@pytest.mark.parametrize("shape", _TOKEN_SHAPES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_token_a_shape_matches_holds_one_of_the_vendor_patterns_literals(shape, data):
    token = data.draw(st.from_regex(re.compile(shape), fullmatch=True))
    assert any(literal in token for literal in VENDOR_TOKEN.required_literals()), (shape, token)
    assert any(literal in token for literal in required(shape)), (shape, token)


def test_what_cannot_be_proven_rules_nothing_out():
    assert required(r"(?i)bearer\s+\S+") == (), "case-insensitive: a case-sensitive test would miss BEARER"
    assert required(r"abc|xyz") == (), "a top-level choice"
    assert required(r"[a-z]+\d{4}") == ()
    assert required(r"ab?cd") == ("cd",) and required(r"(?:ab)?c(?:d|e)") == ("cd", "ce")
    assert any_required([r"sk-\w+", r"[0-9]+"]) == (), "one shape without a literal keeps every text in"
    for escaped in (r"a\x2db", r"a\u005fb", r"a\N{HYPHEN-MINUS}b", r"(a)\1b"):
        assert required(escaped) == (), f"{escaped}: the characters after an escape are no literal of the match"


def test_a_text_without_the_literals_is_not_searched_and_one_with_a_token_is_redacted():
    pattern = LazyPattern(r"(?<![A-Za-z0-9])(?:AKIA[0-9A-Z]{16})", needs=("AKIA",))
    assert pattern.sub(REDACTED, "Deploy on Friday after the smoke tests.") == "Deploy on Friday after the smoke tests."
    assert pattern._pattern is None, "nothing compiled for a text that cannot match"
    assert pattern.sub(REDACTED, "id AKIAIOSFODNN7EXAMPLE here") == f"id {REDACTED} here"


def test_redacting_ordinary_prose_compiles_no_vendor_token_pattern():
    code = ("from memory_core.safety.redaction import redact_secrets\n"
            "from memory_core.safety.secret_patterns import VENDOR_TOKEN\n"
            "redact_secrets('Learning 7: run the parser tests before every commit; keep the keyword index small.')\n"
            "print(VENDOR_TOKEN._pattern is None)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "True", done.stderr


@pytest.mark.parametrize("text", ["key ghp_0123456789abcdefghijABCDEFGHIJ0123 in a note", "AKIAIOSFODNN7EXAMPLE",
                                  "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.c2lnbmF0dXJlXzEyMw"])
def test_tokens_are_still_redacted(text):
    assert REDACTED in redact_secrets(text, scanners=False)


def test_a_gated_secret_pattern_finds_nothing_in_a_text_without_its_literals():
    """Every `needs` of the core's secret patterns holds over the secret corpus: where the compiled pattern finds
    a match, the text holds one of the literals (so ruling a text out never hides a secret)."""
    import memory_core.safety.secret_assignments as assignments
    import memory_core.safety.secret_patterns as patterns
    from tests._secret_samples import SAMPLES

    texts = [text for table in SAMPLES.values() for text, _ in table.values()]
    texts += ["ENV API_TOKEN abc123", "<apiKey>k3y-v4lue</apiKey>", "<Password>x</Password> and ENV"]
    gated = [p for module in (patterns, assignments) for p in vars(module).values()
             if isinstance(p, LazyPattern) and p.required_literals()]
    assert len(gated) >= 3
    for pattern in gated:
        compiled = re.compile(pattern._source, pattern._flags)
        for text in texts:
            if compiled.search(text):
                assert any(literal in text for literal in pattern.required_literals()), (pattern._source[:40], text)
