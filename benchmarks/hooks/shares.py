"""The issue's three shares (and the most shown to one prompt) from what each prompt was given."""

from __future__ import annotations

from typing import Sequence

from benchmarks.relevance.floor_fit import TARGETS

LIMIT = 3
"""The issue's ceiling: never more than 3 learnings a prompt."""


def hook_shares(given: Sequence[tuple[Sequence[int], bool]]) -> dict:
    """From (grades of the learnings shown, whether the prompt is answerable) per prompt: answerable prompts
    given a grade-2 learning, shown learnings graded >= 1, unanswerable prompts given nothing, shown per prompt,
    the most shown to one prompt, and whether each target (and the ceiling) is met."""
    answerable = [grades for grades, yes in given if yes]
    unanswerable = [grades for grades, yes in given if not yes]
    shown = [g for grades, _ in given for g in grades]
    found = {"grade2": sum(2 in grades for grades in answerable) / len(answerable) if answerable else 0.0,
             "relevant": sum(g >= 1 for g in shown) / len(shown) if shown else 0.0,
             "silent": sum(not grades for grades in unanswerable) / len(unanswerable) if unanswerable else 0.0,
             "injected_per_prompt": len(shown) / len(given) if given else 0.0,
             "max_injected": max((len(grades) for grades, _ in given), default=0),
             "answerable": len(answerable), "unanswerable": len(unanswerable)}
    found["targets_met"] = all(found[k] >= v for k, v in TARGETS.items()) and found["max_injected"] <= LIMIT
    return found
