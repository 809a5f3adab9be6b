"""The relevance floor refitted on every judged prompt file pooled (issue 23): feature set, label, L2, order and
floor chosen inside the training folds only (nested), the hook's shares on the held-out folds per file and pooled,
next to today's feature set under the same procedure and today's shipped constants."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from benchmarks.relevance.floor import FOLDS, LABELS, ORDERS, SEED, hook_input
from benchmarks.relevance.floor_features import QueryCandidates
from benchmarks.relevance.floor_fit import (TARGETS, Logistic, choose_floor, fit_logistic, hook_outcome,
                                            prompt_folds, target_margin)
from benchmarks.relevance.pooled import PooledPrompts, sources
from memory_core.ranking.absolute_relevance import KEYWORDS_ONLY, WITH_MODEL
from memory_core.ranking.relevance_signals import (BM25, BM25_PER_WORD, COSINE, COSINE_GAP, COSINE_Z,
                                                   PASSAGE_COSINE, QUERY_WORDS, RANK, WORD_SHARE)

TODAY = {"full": (COSINE, PASSAGE_COSINE, BM25), "keyword": (BM25,)}
SHIPPED = {"full": WITH_MODEL, "keyword": KEYWORDS_ONLY}
CANDIDATES = {
    "full": [TODAY["full"], (COSINE, BM25), (COSINE, BM25_PER_WORD), (COSINE, PASSAGE_COSINE, BM25_PER_WORD),
             (COSINE_Z, BM25), (COSINE_Z, PASSAGE_COSINE, BM25), (COSINE, COSINE_Z, BM25), (COSINE, COSINE_GAP, BM25),
             (COSINE_GAP, PASSAGE_COSINE, BM25), (COSINE, BM25, RANK), (COSINE_Z, BM25, RANK),
             (COSINE, BM25_PER_WORD, RANK), (COSINE_Z, WORD_SHARE), (COSINE, COSINE_Z, WORD_SHARE),
             (COSINE, PASSAGE_COSINE, WORD_SHARE), (COSINE, COSINE_Z, BM25, QUERY_WORDS)],
    "keyword": [TODAY["keyword"], (BM25, RANK), (WORD_SHARE,), (BM25, WORD_SHARE), (BM25, QUERY_WORDS),
                (BM25_PER_WORD,), (BM25, BM25_PER_WORD), (BM25_PER_WORD, RANK), (WORD_SHARE, QUERY_WORDS),
                (BM25, WORD_SHARE, RANK)]}
"""The feature sets tried per path (2-4 features: ~200 prompts carry no more)."""
RIDGES = (0.01, 0.1)
"""L2 per row on standardised columns: today's, and ten times it."""


def _rows(queries: Sequence[QueryCandidates], path: str, features: Sequence[str]) -> np.ndarray:
    return np.array([[c.features[f] for f in features] for q in queries for c in q.paths[path]], dtype=float)


def fit(queries, path: str, features: Sequence[str], least: int, ridge: float) -> Logistic:
    """The logistic on these queries' candidates, relevant = grade >= least."""
    grades = np.array([c.grade for q in queries for c in q.paths[path]])
    return fit_logistic(_rows(queries, path, features), (grades >= least).astype(float), features, ridge=ridge)


def _configs(feature_sets: Sequence[tuple[str, ...]]):
    for features in feature_sets:
        for label, least in LABELS.items():
            for ridge in RIDGES:
                for order in ORDERS:
                    yield tuple(features), label, least, ridge, order


def _choice(queries, path: str, config) -> dict:
    """One configuration fitted on these queries, its floor chosen on them."""
    features, label, least, ridge, order = config
    model = fit(queries, path, features, least, ridge)
    floor, outcome = choose_floor(hook_input(queries, path, model, order))
    return {"features": list(features), "label": label, "ridge": ridge, "order": order, "floor": floor,
            "logistic": model, "training": outcome}


def _key(outcome: dict) -> tuple[float, float]:
    # ties on the worst-met target go to the better sum of the three shares
    return round(target_margin(outcome), 6), round(sum(outcome[k] for k in TARGETS), 6)


def select(queries, path: str, feature_sets: Sequence[tuple[str, ...]]) -> dict:
    """Feature set, label, L2, order and floor that best meet the targets on these queries (in sample)."""
    best = None
    for config in _configs(feature_sets):
        choice = _choice(queries, path, config)
        if best is None or _key(choice["training"]) > best[0]:
            best = (_key(choice["training"]), choice)
    return best[1]


def _folds(queries, k: int = FOLDS) -> list[set[str]]:
    return [set(f) for f in prompt_folds([q.key for q in queries if q.answerable],
                                         [q.key for q in queries if not q.answerable], k, SEED)]


def select_by_inner_cv(queries, path: str, feature_sets: Sequence[tuple[str, ...]], k: int = 4) -> dict:
    """The configuration (feature set, label, L2, order) whose shares on inner held-out folds of these queries
    best meet the targets (each inner fold's floor chosen on the other inner folds); then fitted, and its floor
    chosen, on all of these queries. Less eager than `select` for the set with the most features."""
    folds = _folds(queries, k)
    best = None
    for config in _configs(feature_sets):
        held = []
        for inside in folds:
            choice = _choice([q for q in queries if q.key not in inside], path, config)
            held += passed([q for q in queries if q.key in inside], path, choice["logistic"], config[4],
                           choice["floor"])
        key = _key(hook_outcome(held, 0.5))
        if best is None or key > best[0]:
            best = (key, config)
    return _choice(queries, path, best[1])


SELECTIONS = {"in sample": select, "inner CV": select_by_inner_cv}
"""How a training split chooses: the configuration best on the split itself, or best on inner folds of it."""


def described(choice: dict) -> dict:
    """A choice without its fitted object, with its coefficients."""
    model = choice["logistic"]
    return {k: v for k, v in choice.items() if k not in ("logistic",)} | {
        "weights": [round(w, 4) for w in model.weights], "bias": round(model.bias, 4)}


def passed(queries, path: str, model: Logistic, order: str, floor: float) -> list:
    """hook_outcome's input with each relevance turned into 1 (over the floor) or 0, so folds with their own
    floors pool."""
    return [(grades, (relevance >= floor).astype(float), answerable)
            for grades, relevance, answerable in hook_input(queries, path, model, order)]


def breakdown(pooled: PooledPrompts, held: dict[str, tuple]) -> dict:
    """The shares pooled, per source file and on the near-topic unanswerable prompts, from prompt key -> input."""
    found = {"pooled": hook_outcome(list(held.values()), 0.5)}
    for name in sources(pooled):
        found[name] = hook_outcome([v for k, v in held.items() if pooled.source[k] == name], 0.5)
    near = [v for k, v in held.items() if pooled.near_topic(k)]
    found["near_topic_unanswerable"] = {"prompts": len(near), "silent": hook_outcome(near, 0.5)["silent"]}
    return found


def cross_validated(pooled: PooledPrompts, path: str, feature_sets, chooser=select) -> dict:
    """Per fold the choice made on the other folds; held-out shares pooled, per file, near-topic."""
    queries = pooled.queries
    held, chosen = {}, []
    for inside in _folds(queries):
        choice = chooser([q for q in queries if q.key not in inside], path, feature_sets)
        test = [q for q in queries if q.key in inside]
        held.update(zip([q.key for q in test], passed(test, path, choice["logistic"], choice["order"],
                                                       choice["floor"])))
        chosen.append({k: v for k, v in described(choice).items() if k != "training"})
    return {"held_out": breakdown(pooled, held), "folds": chosen}


def leave_file_out(pooled: PooledPrompts, path: str, feature_sets, chooser=select) -> dict:
    """Each file's shares when everything (choice and fit) was made on the other files only: the shift to prompts
    written later, by someone else."""
    found = {}
    for name in sources(pooled):
        train = [q for q in pooled.queries if pooled.source[q.key] != name]
        test = [q for q in pooled.queries if pooled.source[q.key] == name]
        if not train or not test:
            continue
        choice = chooser(train, path, feature_sets)
        found[name] = hook_outcome(passed(test, path, choice["logistic"], choice["order"], choice["floor"]), 0.5)
    return found


def shipped(pooled: PooledPrompts, path: str) -> dict:
    """Today's shipped model and floor on every prompt (in sample on `calibration`, out of sample elsewhere)."""
    model = SHIPPED[path]
    logistic = Logistic(tuple(model.weights), tuple(model.weights.values()), model.bias)
    order = "relevance" if model.order_by_relevance else "ranking"
    held = dict(zip([q.key for q in pooled.queries],
                    passed(pooled.queries, path, logistic, order, model.hook_floor)))
    return breakdown(pooled, held)


def refit(pooled: PooledPrompts, paths: Sequence[str] = ("full", "keyword")) -> dict:
    """Per path: today's shipped constants; today's feature set and every candidate set, each chosen by both
    selections, nested-CV'd and left-file-out; and the choice made on every prompt (what would ship)."""
    found = {}
    for path in paths:
        variants = {"today's features": [TODAY[path]], "candidates": CANDIDATES[path]}
        found[path] = {"shipped constants": {"held_out": shipped(pooled, path)}}
        for name, feature_sets in variants.items():
            for how, chooser in SELECTIONS.items():
                found[path][f"{name}, {how}"] = {
                    "cross_validated": cross_validated(pooled, path, feature_sets, chooser),
                    "leave_file_out": leave_file_out(pooled, path, feature_sets, chooser),
                    "chosen_on_all": described(chooser(pooled.queries, path, feature_sets))}
    return found
