"""Tiered keyword generation (spec 001 D5, design C3): supplied -> providers in order -> skip."""

from __future__ import annotations

import re
import sys
import threading
from dataclasses import dataclass
from typing import Optional, Sequence

from memory_core.deadline import MonotonicTicker, Ticker
from memory_core.keywords import MIN_KEYWORDS, clean_keywords
from memory_core.ports.keyword_generator import KeywordGenerator

TIER_TIMEOUT_S = 5.0
_WORD = re.compile(r"[a-z0-9]+")


def _stem(word: str) -> str:
    """A crude stem so parse/parsing/parser/parsers compare equal."""
    for suffix in ("ations", "ation", "ings", "ing", "ers", "er", "ies", "es", "ed", "s", "e"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def grounded(keyword: str, text: str) -> bool:
    """AC5: the keyword occurs in the text, or each of its words is a morphological variant of a text word."""
    lowered = text.lower()
    if keyword in lowered or keyword.replace("-", " ") in lowered:
        return True
    stems = {_stem(w) for w in _WORD.findall(lowered)}
    return all(_stem(part) in stems for part in keyword.split("-") if part)


@dataclass
class Tier:
    """One named keyword generator."""

    name: str
    generator: KeywordGenerator
    in_process: bool = False
    """A tier that only computes in this process (no network, no model): called directly, without a timeout
    thread, so an import on a session's clock adds no thread beside the embedding worker."""


class TieredKeywords:
    """Tries each tier with a timeout; a tier counts only if >= 3 valid keywords are grounded in the text."""

    def __init__(self, tiers: Sequence[Tier], timeout_s: float = TIER_TIMEOUT_S,
                 ticker: Optional[Ticker] = None) -> None:
        self._tiers = list(tiers)
        self._timeout_s = timeout_s
        self._ticker: Ticker = ticker if ticker is not None else MonotonicTicker()

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
                print(f"iflow-memory: keyword tier {tier.name} failed: {type(exc).__name__}", file=sys.stderr)
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
            print(f"iflow-memory: keyword tier {tier.name} timed out", file=sys.stderr)
            return None
        error = outcome.get("error")
        if error is None:
            return outcome["keywords"]  # type: ignore[return-value]
        if not isinstance(error, Exception):
            raise error  # type: ignore[misc]  # KeyboardInterrupt, SystemExit: not a tier failure
        # A failing tier falls through to the next one.
        print(f"iflow-memory: keyword tier {tier.name} failed: {type(error).__name__}", file=sys.stderr)
        return None
