"""A logistic relevance and a floor on it, chosen on training prompts and judged on held-out ones (issue 23)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

INJECT = 3
TARGETS = {"grade2": 0.8, "relevant": 0.5, "silent": 0.8}
"""The issue's targets: answerable prompts given a grade-2 entry, injected entries graded >= 1, unanswerable
prompts given nothing."""
FLOORS = np.round(np.linspace(0.01, 0.99, 99), 2)
RIDGE = 1e-2
"""A little L2 on the weights keeps Newton's steps finite when the training data happen to be separable."""


@dataclass(frozen=True)
class Logistic:
    """P(relevant) = sigmoid(bias + weights . x) on raw features (the standardisation folded in)."""

    features: tuple[str, ...]
    weights: tuple[float, ...]
    bias: float

    def probability(self, x: np.ndarray) -> np.ndarray:
        """The fitted probability of each row of x (columns in `features` order)."""
        return 1.0 / (1.0 + np.exp(-(np.asarray(x, dtype=float) @ np.asarray(self.weights) + self.bias)))


def fit_logistic(x: np.ndarray, y: np.ndarray, features: Sequence[str], steps: int = 30,
                 ridge: float = RIDGE) -> Logistic:
    """Newton's method on the L2-penalised log-likelihood (`ridge` per row), on standardised columns."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / scale])
    beta = np.zeros(z.shape[1])
    penalty = np.diag([0.0] + [ridge * len(x)] * (z.shape[1] - 1))
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(z @ beta)))
        gradient = z.T @ (y - p) - penalty @ beta
        hessian = (z * (p * (1 - p))[:, None]).T @ z + penalty + 1e-9 * np.eye(z.shape[1])
        step = np.linalg.solve(hessian, gradient)
        beta += step
        if np.abs(step).max() < 1e-10:
            break
    weights = beta[1:] / scale
    return Logistic(tuple(features), tuple(weights.tolist()), float(beta[0] - weights @ mean))


def prompt_folds(answerable: Sequence[str], unanswerable: Sequence[str], k: int = 5,
                 seed: int = 23) -> list[list[str]]:
    """k folds of prompt keys, each kind shuffled with a fixed seed and dealt round-robin (so both kinds are in
    every fold when there are k of each)."""
    rng = np.random.default_rng(seed)
    folds: list[list[str]] = [[] for _ in range(k)]
    offset = 0
    for kind in (list(answerable), list(unanswerable)):
        for n, position in enumerate(rng.permutation(len(kind))):
            folds[(n + offset) % k].append(kind[position])
        offset = (offset + len(kind)) % k  # the next kind starts where this one stopped, so sizes stay even
    return folds


def hook_outcome(prompts: Sequence[tuple[list[int], np.ndarray, bool]], floor: float) -> dict[str, float]:
    """What the prompt hook would inject (of the first INJECT in the given order, those over the floor) for prompts
    given as (grades in order, relevance of each, answerable): the issue's three shares."""
    answerable = [p for p in prompts if p[2]]
    unanswerable = [p for p in prompts if not p[2]]
    shown = [[g for g, r in zip(grades[:INJECT], relevance[:INJECT]) if r >= floor] for grades, relevance, _ in prompts]
    injected = [g for grades in shown for g in grades]
    hits = sum(2 in grades for grades, p in zip(shown, prompts) if p[2])
    silent = sum(not grades for grades, p in zip(shown, prompts) if not p[2])
    return {"grade2": hits / len(answerable) if answerable else 0.0,
            "relevant": sum(g >= 1 for g in injected) / len(injected) if injected else 0.0,
            "silent": silent / len(unanswerable) if unanswerable else 0.0,
            "injected_per_prompt": len(injected) / len(prompts) if prompts else 0.0}


def target_margin(outcome: dict[str, float]) -> float:
    """The worst of the three shares as a fraction of its target (>= 1 means every target is met)."""
    return min(outcome[name] / target for name, target in TARGETS.items())


def _shares_by_floor(prompts: Sequence[tuple[list[int], np.ndarray, bool]],
                     floors: np.ndarray) -> dict[str, np.ndarray]:
    """hook_outcome's three shares for every floor at once (one array per share, one value per floor)."""
    grades = np.zeros((len(prompts), INJECT), dtype=int)
    relevance = np.full((len(prompts), INJECT), -np.inf)
    for n, (g, r, _) in enumerate(prompts):
        first = min(len(g), INJECT)
        grades[n, :first], relevance[n, :first] = g[:first], np.asarray(r, dtype=float)[:first]
    answerable = np.array([p[2] for p in prompts], dtype=bool)
    shown = relevance[None, :, :] >= floors[:, None, None]  # floor x prompt x position
    injected = shown.sum(axis=(1, 2))
    hits = (shown & (grades == 2)[None]).any(axis=2)[:, answerable].sum(axis=1)
    related = (shown & (grades >= 1)[None]).sum(axis=(1, 2))
    silent = (~shown.any(axis=2))[:, ~answerable].sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return {"grade2": hits / answerable.sum() if answerable.any() else np.zeros(len(floors)),
                "relevant": np.where(injected > 0, related / np.maximum(injected, 1), 0.0),
                "silent": silent / (~answerable).sum() if (~answerable).any() else np.zeros(len(floors))}


def choose_floor(prompts: Sequence[tuple[list[int], np.ndarray, bool]]) -> tuple[float, dict[str, float]]:
    """The floor whose outcome best meets the worst-met target (ties: the lower floor, which injects more)."""
    shares = _shares_by_floor(prompts, FLOORS)
    margin = np.round(np.min([shares[name] / target for name, target in TARGETS.items()], axis=0), 6)
    best = float(FLOORS[int(np.flatnonzero(margin == margin.max())[0])])
    return best, hook_outcome(prompts, best)
