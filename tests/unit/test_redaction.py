"""Secret-shaped values are replaced with [REDACTED]; ordinary prose about secrets is left alone.

The secret-shaped texts are the `core_formats` and `assignment_spellings` tables of secret_samples.toml."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_core.safety.redaction import (REDACTED, add_detector, contains_secret, detectors, redact_secrets,
                                   remove_detector)
from tests._secret_samples import secret_cases, secret_texts


@pytest.fixture(autouse=True)
def core_patterns_only():
    """These tests are about the core's own patterns: a detector another test's process added is set aside."""
    saved = detectors()
    for detector in saved:
        remove_detector(detector)
    yield
    for detector in saved:
        add_detector(detector)


@pytest.mark.parametrize("text,secret", secret_cases("core_formats"))
def test_each_secret_kind_is_redacted(text, secret):
    redacted = redact_secrets(text)
    assert secret not in redacted, redacted
    assert REDACTED in redacted
    assert contains_secret(text)
    assert not contains_secret(redacted)


def test_url_redaction_keeps_user_and_host():
    assert redact_secrets("postgres://admin:Pg5ecretPassw0rd@db.internal:5432/app") == \
        "postgres://admin:[REDACTED]@db.internal:5432/app"


def test_assignment_redaction_keeps_the_key_and_quotes():
    assert redact_secrets('password = "hunter2hunter2"') == 'password = "[REDACTED]"'
    assert redact_secrets("token: abcdef123456 next") == "token: [REDACTED] next"


@pytest.mark.parametrize("text,secret", secret_cases("assignment_spellings"))
def test_common_assignment_spellings_are_redacted(text, secret):
    redacted = redact_secrets(text)
    assert secret not in redacted, redacted
    assert contains_secret(text)


PROSE = [
    "Rotate the API token before the password expires.",
    "The password field must be hashed with bcrypt, never stored in plain text.",
    "Use bearer tokens for service-to-service auth and short-lived sessions.",
    "Keep the memory block within a token budget of 12000 characters.",
    "Set api_key in the environment, never in code.",
    "AKIA is the prefix of AWS access key ids; ghp_ marks GitHub tokens.",
    "A JWT starts with eyJ because the header is base64-encoded JSON.",
    "Connect with postgres://localhost/app and https://user@example.invalid/path (no password).",
    "-----BEGIN PUBLIC KEY----- blocks are safe to share.",
    "The secret to fast tests is small fixtures.",
    "Leave `token=` and `password=` empty in the sample file.",
    "scikit-learn, sk-learn and sk-ant are just words here.",
    "Basic auth is discouraged; Bearer auth needs TLS.",
    "",
]


@pytest.mark.parametrize("text", PROSE)
def test_ordinary_prose_about_secrets_is_unchanged(text):
    assert redact_secrets(text) == text
    assert not contains_secret(text)


SECRET_TEXTS = st.sampled_from(secret_texts("core_formats"))
PIECES = st.one_of(
    SECRET_TEXTS, st.sampled_from(PROSE),
    st.sampled_from(["password", "token", "api_key", "secret", "Bearer", "Basic", "://", ":", "=", "@", "/", "'",
                     '"', " ", "\n", "sk-", "AKIA", "eyJ", "-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----",
                     "[REDACTED]", "x" * 20, "redis://", "mysql -p", "--password ", "DB_PASSWORD=", "<password>",
                     "</password>", "ENV TOKEN ", "hooks.slack.com/services/", "secret: ", " = ",
                     "Authorization: Token ", "?sig=", "npm_" + "a1" * 18, "-----BEGIN PGP PRIVATE KEY BLOCK-----",
                     "Private-Lines: 2\n"]),
    st.text(max_size=12),
)
MIXED = st.one_of(st.text(), st.lists(PIECES, max_size=12).map("".join), st.lists(PIECES, max_size=12).map(" ".join))


@settings(max_examples=200, deadline=None)
@given(text=MIXED)
def test_redaction_is_idempotent_and_agrees_with_contains_secret(text):
    once = redact_secrets(text)
    assert redact_secrets(once) == once
    assert not contains_secret(once)
    assert contains_secret(text) == (once != text)


def test_redaction_is_idempotent_for_a_quoted_password_inside_a_url():
    """A quoted assignment inside a URL's password slot: the first pass must not leave a new match behind."""
    text = "s://u:password='ab/cdef'@host"
    once = redact_secrets(text)
    assert redact_secrets(once) == once, (once, redact_secrets(once))


def test_an_added_detector_redacts_the_spans_it_reports():
    def finds_moon(text):
        start = text.find("moon")
        return [(start, start + 4)] if start >= 0 else []

    add_detector(finds_moon)
    try:
        assert redact_secrets("over the moon") == "over the [REDACTED]"
        assert contains_secret("moon")
        assert redact_secrets("over the moon", scanners=False) == "over the moon", "scanners=False: core only"
    finally:
        remove_detector(finds_moon)
    assert redact_secrets("over the moon") == "over the moon"


def test_overlapping_spans_are_merged_and_a_redacted_span_stays():
    def overlapping(text):
        return [(0, 4), (2, 6), (text.find("[REDACTED]"), text.find("[REDACTED]") + 10)]

    add_detector(overlapping)
    try:
        assert redact_secrets("abcdefgh [REDACTED]") == "[REDACTED]gh [REDACTED]"
    finally:
        remove_detector(overlapping)


def test_detectors_given_for_one_call_are_used_for_that_call_only():
    def finds_moon(text):
        start = text.find("moon")
        return [(start, start + 4)] if start >= 0 else []

    assert redact_secrets("over the moon", scanners=False, also=(finds_moon,)) == "over the [REDACTED]"
    assert redact_secrets("over the moon") == "over the moon"
    assert finds_moon not in detectors()
