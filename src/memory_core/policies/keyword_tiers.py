"""Tiered keyword generation (spec 001 D5, design C3): supplied -> providers in order -> skip.

A keyword counts when it is grounded in the description or reasoning (AC5): there verbatim, or each of its words
a morphological variant of a word there, which `stem` decides (pinning/pin, parser/parsing, retries/retry)."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Optional, Sequence

from memory_core.session.deadline import MonotonicTicker, Ticker
from memory_core.entries.keywords import MIN_KEYWORDS, clean_keywords
from memory_core.ports.keyword_generator import KeywordGenerator

TIER_TIMEOUT_S = 5.0
_WORD = re.compile(r"[a-z0-9]+")
_CAMEL_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_NOT_A_SUFFIX = frozenset(["embed"])
"""Words whose `-ed` is part of the root (Porter's `embed` -> `emb` would split embed from embedding)."""
_NOT_AGENTIVE = frozenset(
    "after better banner corner docker hammer letter manner master matter member number order other "
    "proper summer under water".split())
"""Common words ending in -er that are not "one who does X": stripping it would make them collide (letter/let)."""
_KINDS = str.maketrans({c: ("v" if c in "aeiou" else "c") for c in "abcdefghijklmnopqrstuvwxyz0123456789"})


def _kinds(word: str) -> str:
    """One letter per character: v for a vowel, c for a consonant (y is a vowel after a consonant: try, retry)."""
    kinds = word.translate(_KINDS)
    if "y" in word[1:]:
        chars = list(kinds)
        for i in range(1, len(word)):
            if word[i] == "y" and chars[i - 1] == "c":
                chars[i] = "v"
        kinds = "".join(chars)
    return kinds


def _measure(stem: str) -> int:
    """Porter's m: how many vowel-consonant sequences the stem has."""
    return _kinds(stem).count("vc")


def _has_vowel(stem: str) -> bool:
    return "v" in _kinds(stem)


def _consonant_at(stem: str, i: int) -> bool:
    return _kinds(stem)[i] == "c"


def _cvc(stem: str) -> bool:
    """Ends consonant-vowel-consonant, the last not w/x/y (hop, pin): such a short stem had an e (hope, pine)."""
    return _kinds(stem).endswith("cvc") and stem[-1] not in "wxy"


def _strip_inflection(word: str) -> str:
    """Porter step 1b, with the agentive -er beside -ed and -ing (parser, parsed, parsing -> pars)."""
    if word.endswith("eed"):
        return word[:-1] if _measure(word[:-3]) > 0 else word
    for suffix in ("ing", "ed", "er"):
        if not word.endswith(suffix):
            continue
        stem = word[: -len(suffix)]
        if not _has_vowel(stem) or (suffix == "er" and (len(stem) < 4 or word in _NOT_AGENTIVE)):
            return word
        if stem.endswith(("at", "bl", "iz")):
            return stem + "e"
        if len(stem) > 1 and stem[-1] == stem[-2] and stem[-1] not in "lsz" and _consonant_at(stem, -1):
            return stem[:-1]
        return stem + "e" if _measure(stem) == 1 and _cvc(stem) else stem
    return word


@lru_cache(maxsize=16384)
def stem(word: str) -> str:
    """A light Porter-style stem of a lowercase word: pin/pinning/pinned, parse/parser/parsing, retry/retries."""
    if len(word) <= 2:
        return word
    if word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("ies"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if word not in _NOT_A_SUFFIX:
        word = _strip_inflection(word)
    if word.endswith("y") and _has_vowel(word[:-1]):
        word = word[:-1] + "i"
    for suffix, replacement in (("ization", "ize"), ("ation", "ate"), ("ator", "ate")):
        if word.endswith(suffix) and _has_vowel(word[: -len(suffix)]):
            word = word[: -len(suffix)] + replacement
            break
    if word.endswith("ate") and _measure(word[:-3]) > 1:  # validate/validation -> valid, configure/-ation
        word = word[:-3]
    if word.endswith("e"):
        root = word[:-1]
        if _measure(root) > 1 or (_measure(root) == 1 and not _cvc(root)):
            word = root
    if word.endswith("ll") and _measure(word) > 1:
        word = word[:-1]
    return word


@lru_cache(maxsize=256)
def _lowered(text: str) -> str:
    return text.lower()  # cached: a tier's keywords are all checked against the same text


@lru_cache(maxsize=256)
def _text_words(text: str) -> dict[str, list[str]]:
    """The text's words by first letter, camelCase and snake_case parts included (ParseFailure -> parse, failure).
    A stem keeps its word's first letter, so a keyword word is compared with those words only (fewer stems)."""
    by_letter: dict[str, list[str]] = {}
    for word in set(_WORD.findall(_lowered(text))).union(p.lower() for p in _CAMEL_PART.findall(text)):
        by_letter.setdefault(word[0], []).append(word)
    return by_letter


def _variant_in(part: str, text: str) -> bool:
    root = stem(part)
    return any(stem(word) == root for word in _text_words(text).get(part[0], ()))


def grounded(keyword: str, text: str) -> bool:
    """AC5: the keyword occurs in the text, or each of its words is a morphological variant of a text word."""
    lowered = _lowered(text)
    if keyword in lowered or keyword.replace("-", " ") in lowered:
        return True
    return all(_variant_in(part, text) for part in keyword.split("-") if part)


@dataclass
class Tier:
    """One named keyword generator."""

    name: str
    generator: KeywordGenerator
    in_process: bool = False
    """A tier that only computes in this process (no network, no model): called directly, without a timeout
    thread, so an import on a session's clock adds no thread beside the embedding worker."""


def _ignore(message: str) -> None:
    """The default warning sink: the core says what went wrong, the caller decides whether anyone sees it."""


class TieredKeywords:
    """Tries each tier with a timeout; a tier counts only if >= 3 valid keywords are grounded in the text.

    A tier that fails or times out is reported to `warn` (e.g. "keyword tier haiku timed out"), and the next
    tier answers."""

    def __init__(self, tiers: Sequence[Tier], timeout_s: float = TIER_TIMEOUT_S,
                 ticker: Optional[Ticker] = None, warn: Callable[[str], None] = _ignore) -> None:
        self._tiers = list(tiers)
        self._timeout_s = timeout_s
        self._ticker: Ticker = ticker if ticker is not None else MonotonicTicker()
        self._warn = warn

    def generate(self, name: str, description: str, reasoning: str, category: str,
                 supplied: Sequence[str] = ()) -> list[str]:
        """Return 3-10 keywords, or [] when every tier failed (the entry is still stored)."""
        text = "\n".join([description, reasoning])  # AC5: grounded in the description or reasoning
        accepted = self._accept(supplied, text)
        if accepted:
            return accepted
        for tier in self._tiers:
            candidates = self._run(tier, name, description, reasoning, category)
            accepted = self._accept(candidates or [], text)
            if accepted:
                return accepted
        return []

    @staticmethod
    def _accept(candidates: Sequence[str], text: str) -> list[str]:
        kept = clean_keywords(candidates)
        if len(kept) >= MIN_KEYWORDS and sum(grounded(k, text) for k in kept) >= MIN_KEYWORDS:
            return kept
        return []

    def _run(self, tier: Tier, name: str, description: str, reasoning: str, category: str) -> Optional[list[str]]:
        if tier.in_process:
            try:
                return list(tier.generator.generate(name, description, reasoning, category))
            except Exception as exc:  # noqa: BLE001 - a failing tier falls through to the next one
                self._warn(f"keyword tier {tier.name} failed: {type(exc).__name__}")
                return None
        done = threading.Event()
        outcome: dict[str, object] = {}

        def call() -> None:
            try:
                outcome["keywords"] = list(tier.generator.generate(name, description, reasoning, category))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread below
                outcome["error"] = exc
            finally:
                done.set()

        # One thread per call, never joined: an abandoned tier finishes (or hangs) on its own.
        threading.Thread(target=call, name=f"keyword-tier-{tier.name}", daemon=True).start()  # never outlives the app
        if not self._ticker.wait(done, self._timeout_s):
            self._warn(f"keyword tier {tier.name} timed out")
            return None
        error = outcome.get("error")
        if error is None:
            return outcome["keywords"]  # type: ignore[return-value]
        if not isinstance(error, Exception):
            raise error  # type: ignore[misc]  # KeyboardInterrupt, SystemExit: not a tier failure
        # A failing tier falls through to the next one.
        self._warn(f"keyword tier {tier.name} failed: {type(error).__name__}")
        return None
