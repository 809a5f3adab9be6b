"""TieredKeywords: supplied keywords, then each tier in order, each within a timeout, all grounded in the text."""

from __future__ import annotations

import threading

from hypothesis import given, settings
from hypothesis import strategies as st

from memory_core.errors import KeywordGenerationError
from memory_core.policies.keyword_tiers import Tier, TieredKeywords
from memory_core.entries.keywords import GENERIC_WORDS
from tests.fakes import FakeTicker

NAME = "Parser error recovery"
DESCRIPTION = "When parsing config files, recover from syntax errors and report line numbers"
REASONING = "Users fix several mistakes per run instead of one"
GOOD = ["config-files", "syntax-errors", "line-numbers"]


class FixedTier:
    """Returns the same candidates every time and counts its calls."""

    def __init__(self, keywords) -> None:
        self.keywords, self.calls = list(keywords), 0

    def generate(self, name, description, reasoning, category):
        self.calls += 1
        return list(self.keywords)


class FailingTier:
    def generate(self, name, description, reasoning, category):
        raise KeywordGenerationError("model offline")


class SleepingTier:
    """Blocks until released (or 60 s), like a hung network call; `entered` is set once it has been called."""

    def __init__(self) -> None:
        self.release, self.entered, self.calls = threading.Event(), threading.Event(), 0

    def generate(self, name, description, reasoning, category):
        self.calls += 1
        self.entered.set()
        self.release.wait(60)
        return list(GOOD)


def generate(tiers, supplied=(), timeout_s: float = 1.0, ticker=None, warnings=None) -> list[str]:
    named = [Tier(f"tier{i}", generator) for i, generator in enumerate(tiers)]
    warn = warnings.append if warnings is not None else (lambda message: None)
    return TieredKeywords(named, timeout_s=timeout_s, ticker=ticker, warn=warn).generate(
        NAME, DESCRIPTION, REASONING, "patterns", supplied)


def test_grounded_supplied_keywords_win_and_no_tier_runs():
    tier = FixedTier(["recovery", "parser", "syntax"])
    assert generate([tier], supplied=["Config Files", "syntax-errors", "line-numbers"]) == GOOD
    assert tier.calls == 0


def test_ungrounded_supplied_keywords_fall_through_to_the_tiers():
    tier = FixedTier(GOOD)
    assert generate([tier], supplied=["kubernetes", "helm-charts", "terraform"]) == GOOD
    assert tier.calls == 1


def test_fewer_than_three_valid_supplied_keywords_fall_through():
    tier = FixedTier(GOOD)
    assert generate([tier], supplied=["config-files", "code", "data", "Not Valid!"]) == GOOD


def test_a_raising_tier_falls_through_to_the_next_and_is_reported_not_printed(capsys):
    warnings: list[str] = []
    assert generate([FailingTier(), FixedTier(GOOD)], warnings=warnings) == GOOD
    assert warnings == ["keyword tier tier0 failed: KeywordGenerationError"]
    assert capsys.readouterr() == ("", ""), "the core prints nothing: the app decides who sees a warning"


def test_a_tier_with_ungrounded_output_falls_through_to_the_next():
    first, second = FixedTier(["kubernetes", "helm-charts", "terraform"]), FixedTier(GOOD)
    assert generate([first, second]) == GOOD
    assert (first.calls, second.calls) == (1, 1)


def test_a_tier_slower_than_the_timeout_is_abandoned():
    sleeper, fallback = SleepingTier(), FixedTier(["line-numbers", "config-files", "syntax-errors"])
    ticker = FakeTicker()  # its wait reports "timed out" at once: the sleeper is still blocked
    warnings: list[str] = []
    try:
        result = generate([sleeper, fallback], timeout_s=0.2, ticker=ticker, warnings=warnings)
        assert sleeper.entered.wait(60), "the slow tier was never called"
    finally:
        sleeper.release.set()
    assert result == ["line-numbers", "config-files", "syntax-errors"]
    assert (sleeper.calls, fallback.calls) == (1, 1)
    assert ticker.monotonic() == 0.2, "the slow tier was given exactly its timeout"
    assert warnings == ["keyword tier tier0 timed out"]


def test_without_a_ticker_a_slow_tier_is_abandoned_in_real_time():
    sleeper = SleepingTier()  # blocks for up to 60 s, so however slow the machine, 0.05 s runs out first
    warnings: list[str] = []
    try:
        result = generate([sleeper], timeout_s=0.05, warnings=warnings)
    finally:
        sleeper.release.set()
    assert result == []
    assert warnings == ["keyword tier tier0 timed out"]


def test_a_tier_that_answers_within_the_timeout_moves_no_time():
    ticker = FakeTicker(real_grace_s=60)  # a tier that answers at once: the grace is never used up
    warnings: list[str] = []
    assert generate([FixedTier(GOOD)], timeout_s=0.2, ticker=ticker, warnings=warnings) == GOOD
    assert ticker.monotonic() == 0.0
    assert warnings == []


def test_no_tiers_and_nothing_supplied_gives_no_keywords():
    assert generate([]) == []


def test_every_tier_failing_gives_no_keywords():
    assert generate([FailingTier(), FixedTier(["kubernetes", "helm", "terraform"])], supplied=["x"]) == []


def test_generic_words_are_dropped_from_what_is_accepted():
    result = generate([], supplied=["code", "config-files", "error", "syntax-errors", "data", "line-numbers"])
    assert result == GOOD


@settings(max_examples=200, deadline=None)
@given(candidates=st.lists(st.one_of(st.sampled_from(sorted(GENERIC_WORDS)),
                                     st.sampled_from(["parser", "config-files", "syntax", "line-numbers",
                                                      "recovery", "Parsing", "error-recovery", "kubernetes"])),
                           max_size=14))
def test_results_never_contain_generic_words(candidates):
    for result in (generate([], supplied=candidates), generate([FixedTier(candidates)])):
        assert not set(result) & GENERIC_WORDS
        assert result == [] or 3 <= len(result) <= 10


def test_an_in_process_tier_runs_on_the_callers_thread():
    """The local extractive tier computes in this process: no timeout thread beside the embedding worker."""
    seen = []

    class Recording:
        def generate(self, name, description, reasoning, category):
            seen.append(threading.current_thread())
            return ["line-numbers", "config-files", "syntax-errors"]

    text = "Report line numbers for syntax errors in config files."
    tiers = TieredKeywords([Tier("local", Recording(), in_process=True)])
    assert tiers.generate("Config errors", text, "", "patterns") == ["line-numbers", "config-files", "syntax-errors"]
    assert seen == [threading.current_thread()]
