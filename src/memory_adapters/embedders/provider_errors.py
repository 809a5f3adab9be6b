"""Maps vendor SDK and HTTP errors to the core's embedding errors, without echoing secrets."""

from __future__ import annotations

import importlib
import os
import re

from memory_core.errors import EmbeddingError, ProviderUnavailable, RateLimited, install_hint
from memory_core.safety.redaction import REDACTED, redact_secrets

# Vendor messages quote keys cut short or whole after `key=`: shapes the core leaves alone in prose, dropped here.
_KEY_FRAGMENT = re.compile(r"sk-[A-Za-z0-9_-]{6,}|AIza[0-9A-Za-z_-]{10,}|pa-[A-Za-z0-9_-]{10,}|(?<=key=)[^&\s]+")


def api_key(variable: str) -> str:
    """The provider key from the environment (the only place keys come from); missing -> ProviderUnavailable."""
    key = os.environ.get(variable)
    if not key:
        raise ProviderUnavailable(f"{variable} is not set")
    return key


def import_sdk(module: str, extra: str, error: type[Exception] = ProviderUnavailable):
    """Import a vendor SDK lazily; missing -> `error` (ProviderUnavailable) with the pip hint."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise error(f"{module} is not installed: {install_hint(extra)}") from exc


def status_of(exc: BaseException) -> int | None:
    """The HTTP status an SDK exception carries, if any."""
    for attribute in ("status_code", "code", "http_status", "status"):
        value = getattr(exc, attribute, None)
        if isinstance(value, int):
            return value
    response = getattr(exc, "response", None)
    value = getattr(response, "status_code", None)
    return value if isinstance(value, int) else None


def _key_fragments(text: str) -> list[tuple[int, int]]:
    return [match.span() for match in _KEY_FRAGMENT.finditer(text)]


def redact(text: str) -> str:
    """Remove anything that looks like an API key from a vendor's message (the core's redaction, plus key
    fragments; no added scanners: an error message is not worth their time)."""
    return redact_secrets(text, scanners=False, also=(_key_fragments,))


def map_vendor_error(exc: BaseException, provider: str, secret: str = "") -> EmbeddingError:
    """429 -> RateLimited; auth, network, timeout and 5xx -> ProviderUnavailable; else EmbeddingError.

    `secret` (the configured key) is removed from the message whatever its shape."""
    status = status_of(exc)
    name = type(exc).__name__
    text = str(exc).replace(secret, REDACTED) if secret else str(exc)
    summary = redact(text)[:200]
    if status == 429 or "RateLimit" in name:
        return RateLimited(f"{provider}: rate limited (HTTP 429)")
    if status in (401, 403) or "Auth" in name or "Permission" in name:
        return ProviderUnavailable(f"{provider}: authentication failed (HTTP {status})")
    if status is not None and status >= 500:
        return ProviderUnavailable(f"{provider}: server error (HTTP {status})")
    if "Timeout" in name or "Connect" in name or "Connection" in name or isinstance(exc, (OSError, TimeoutError)):
        return ProviderUnavailable(f"{provider}: unreachable ({name})")
    return EmbeddingError(f"{provider}: {name}: {summary}")


def single_vector(vectors: list[list[float]], provider: str) -> list[float]:
    """The one vector of a one-text request; an answer without it is an EmbeddingError."""
    if len(vectors) != 1:
        raise EmbeddingError(f"{provider}: expected 1 vector, got {len(vectors)}")
    return vectors[0]
