"""Secret-shaped values are replaced before an entry is stored, embedded or printed."""

from __future__ import annotations

import re

REDACTED = "[REDACTED]"

_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    # PEM private keys, whole block.
    (re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)", re.DOTALL),
     REDACTED),
    # Passwords inside URLs: scheme://user:password@host
    (re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^\s:/@]+):[^\s@/]+@"), r"\1:" + REDACTED + "@"),
    # Vendor token formats.
    (re.compile(r"\bsk-ant-[A-Za-z0-9_-]{16,}"), REDACTED),
    (re.compile(r"\bsk-(?:proj-|live-|test-)?[A-Za-z0-9_-]{20,}"), REDACTED),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{30,}"), REDACTED),
    (re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}"), REDACTED),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{30,}"), REDACTED),
    (re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}"), REDACTED),
    (re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), REDACTED),
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), REDACTED),
    (re.compile(r"\bpa-[A-Za-z0-9_-]{30,}"), REDACTED),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"), REDACTED),  # JWT
    # Authorization headers.
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{16,}"), r"\1 " + REDACTED),
    # key=value / key: value assignments of secrets, including prefixed names (DB_PASSWORD, AWS_SECRET_ACCESS_KEY)
    # and JSON/YAML quoting ("password": "...").
    (re.compile(r"(?i)\b([A-Za-z0-9_.-]*(?:api[_-]?key|secret|token|password|passwd|pwd|credentials?|private[_-]?key)"
                r"[A-Za-z0-9_.-]*['\"]?\s*[:=]\s*)(['\"]?)(?!\[REDACTED\])[^\s'\"]{6,}\2"),
     r"\1\2" + REDACTED + r"\2"),
]


def redact_secrets(text: str) -> str:
    """Replace every secret-shaped substring with [REDACTED]."""
    if not text:
        return text
    for _ in range(4):  # patterns can expose each other (a quoted password inside a URL): run to a fixpoint
        before = text
        for pattern, replacement in _PATTERNS:
            text = pattern.sub(replacement, text)
        if text == before:
            break
    return text


def contains_secret(text: str) -> bool:
    """True when redaction would change the text."""
    return redact_secrets(text) != text
