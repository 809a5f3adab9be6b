"""Secret-shaped values are replaced with [REDACTED]; ordinary prose about secrets is left alone."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_core.redaction import (REDACTED, add_detector, contains_secret, detectors, redact_secrets,
                                   remove_detector)


@pytest.fixture(autouse=True)
def core_patterns_only():
    """These tests are about the core's own patterns: a detector another test's process added is set aside."""
    saved = detectors()
    for detector in saved:
        remove_detector(detector)
    yield
    for detector in saved:
        add_detector(detector)

# (kind, text holding the secret, the part that must disappear)
SECRETS = [
    ("openai-project", "key sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0 in a note",
     "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0"),
    ("openai-legacy", "OPENAI_API_KEY=sk-Zq8Xw7Vu6Ts5Rq4Po3Nm2Lk1Jh0Gf9Ed8", "Zq8Xw7Vu6Ts5Rq4Po3Nm2Lk1Jh0Gf9Ed8"),
    ("anthropic", "use sk-ant-api03-Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp for haiku", "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp"),
    ("google", "maps key AIzaSyDq3F4k9L0m1N2o3P4q5R6s7T8u9V0w1X2.", "AIzaSyDq3F4k9L0m1N2o3P4q5R6s7T8u9V0w1X2"),
    ("github-classic", "token ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R here",
     "ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R"),
    ("github-fine-grained", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
     "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"),
    ("gitlab", "glpat-AbCdEfGhIjKlMnOpQrSt12", "AbCdEfGhIjKlMnOpQrSt12"),
    ("slack", "xoxb-123456789012-abcdefABCDEF", "123456789012-abcdefABCDEF"),
    ("aws-access-key", "aws key AKIAIOSFODNN7EXAMPLE leaked", "AKIAIOSFODNN7EXAMPLE"),
    ("aws-session-key", "ASIAY34FZKBOKMUTVV7A", "ASIAY34FZKBOKMUTVV7A"),
    ("voyage", "pa-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
    ("jwt", "session eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6y",
     "SflKxwRJSMeKKF2QT4fwpMeJf36POk6y"),
    ("pem", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq9Fake\nQ2hlY2s=\n-----END RSA PRIVATE KEY-----",
     "MIIEowIBAAKCAQEA7bq9Fake"),
    ("pem-openssh", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE KEY-----",
     "b3BlbnNzaC1rZXktdjEAAAA"),
    ("pem-unterminated", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0B (cut off)", "MIIEvQIBADANBgkqhkiG9w0B"),
    ("url-password", "db at postgres://admin:Pg5ecretPassw0rd@db.internal:5432/app", "Pg5ecretPassw0rd"),
    ("url-password-https", "clone https://bot:gh0stPassw0rd@git.example.invalid/repo.git", "gh0stPassw0rd"),
    ("password-assignment", "password=hunter2hunter2", "hunter2hunter2"),
    ("password-yaml", "password: hunter2hunter2", "hunter2hunter2"),
    ("api-key-assignment", 'api_key = "abcdef1234567890"', "abcdef1234567890"),
    ("secret-key", "SECRET_KEY: django-insecure-abc123xyz", "django-insecure-abc123xyz"),
    ("access-token", "access_token=ya29.A0ARrdaM-secret-value", "ya29.A0ARrdaM-secret-value"),
    ("bearer", "Authorization: Bearer tok9f8e7d6c5b4a3f2e1d0c9b8a7", "tok9f8e7d6c5b4a3f2e1d0c9b8a7"),
    ("basic", "Authorization: Basic dXNlcjpwYXNzd29yZDEyMzQ1Ng==", "dXNlcjpwYXNzd29yZDEyMzQ1Ng=="),
    ("short-password", "password=12345 in the test setup", "12345"),
    ("short-token", "token=short", "short"),
]


@pytest.mark.parametrize("text,secret", [(t, s) for _, t, s in SECRETS], ids=[k for k, _, _ in SECRETS])
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


# Common ways secrets are written in notes about .env files, shell exports and JSON configs.
ASSIGNMENT_SPELLINGS = [
    ("env-prefixed-password", "DB_PASSWORD=hunter2hunter2", "hunter2hunter2"),
    ("env-aws-secret", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
     "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("env-prefixed-token", "export GITLAB_TOKEN=q1w2e3r4t5y6u7i8", "q1w2e3r4t5y6u7i8"),
    ("json-password", '{"password": "hunter2hunter2"}', "hunter2hunter2"),
]


@pytest.mark.parametrize("text,secret", [(t, s) for _, t, s in ASSIGNMENT_SPELLINGS],
                         ids=[k for k, _, _ in ASSIGNMENT_SPELLINGS])
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


SECRET_TEXTS = st.sampled_from([t for _, t, _ in SECRETS])
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
