"""Secret-shaped values are replaced before an entry is stored, embedded or printed.

The core's own patterns (`memory_core.safety.secret_patterns`, `memory_core.safety.secret_assignments`; `re` only) run on
every path, the session-start hook included. The write paths add detect-secrets on top (`add_detector`, ADR 12).
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

from memory_core.safety.secret_assignments import redact_assignments
from memory_core.safety.secret_patterns import REDACTED, redact_shapes

__all__ = ["REDACTED", "Detector", "add_detector", "contains_secret", "detectors", "redact_secrets",
           "remove_detector"]

Detector = Callable[[str], Iterable[tuple[int, int]]]
"""Reports the (start, end) spans of secret values in a text."""

_DETECTORS: list[Detector] = []


def _redact_spans(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """Replace the given spans (merged where they overlap); a span that is already [REDACTED] stays."""
    merged: list[list[int]] = []
    for start, end in sorted(s for s in spans if 0 <= s[0] < s[1] <= len(text)):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    for start, end in reversed(merged):
        if text[start:end].strip("[]") != "REDACTED":
            text = text[:start] + REDACTED + text[end:]
    return text


def _redact_once(text: str, scanners: bool, also: Sequence[Detector]) -> str:
    text = redact_assignments(redact_shapes(text))
    for detector in (*(_DETECTORS if scanners else ()), *also):
        text = _redact_spans(text, detector(text))
    return text


def redact_secrets(text: str, scanners: bool = True, also: Sequence[Detector] = ()) -> str:
    """Replace every secret-shaped substring with [REDACTED]; `scanners=False` skips added detectors (cheap
    enough for every read); `also` adds detectors for this call only."""
    if not text:
        return text
    for _ in range(8):  # patterns can expose each other (a quoted password inside a URL): run to a fixpoint
        before = text
        text = _redact_once(text, scanners, also)
        if text == before:
            break
    return text


def contains_secret(text: str, scanners: bool = True) -> bool:
    """True when redaction would change the text."""
    return redact_secrets(text, scanners) != text


def add_detector(detector: Detector) -> None:
    """Also redact the spans `detector` reports, in this process (the write paths add detect-secrets)."""
    if detector not in _DETECTORS:
        _DETECTORS.append(detector)


def remove_detector(detector: Detector) -> None:
    """Stop using a detector added with `add_detector`."""
    if detector in _DETECTORS:
        _DETECTORS.remove(detector)


def detectors() -> tuple[Detector, ...]:
    """The detectors added in this process, in the order they run."""
    return tuple(_DETECTORS)
