"""The relevance floor refitted on every judged prompt file pooled (issue 23): feature set, label, L2, order and
floor chosen inside the training folds only (nested), the hook's shares on the held-out folds per file and pooled,
next to the earlier feature set under the same procedure and the constants fitted on the first file alone."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from benchmarks.relevance.floor import FOLDS, LABELS, ORDERS, SEED, hook_input
from benchmarks.relevance.floor_features import QueryCandidates
from benchmarks.relevance.floor_fit import (TARGETS, Logistic, choose_floor, fit_logistic, hook_outcome,
                                            prompt_folds, target_margin)
from benchmarks.relevance.pooled import PooledPrompts, sources
from memory_core.ranking.absolute_relevance import KEYWORDS_ONLY, WITH_MODEL, RelevanceModel
from memory_core.ranking.relevance_signals import (BM25, BM25_PER_WORD, COSINE, COSINE_GAP, COSINE_Z,
                                                   PASSAGE_COSINE, QUERY_WORDS, RANK, WORD_SHARE)

EARLIER = {"full": (COSINE, PASSAGE_COSINE, BM25), "keyword": (BM25,)}
SHIPPED = {"full": WITH_MODEL, "keyword": KEYWORDS_ONLY}
BEFORE = {"full": RelevanceModel("meaning + keywords", {COSINE: 5.8781, PASSAGE_COSINE: 2.9131, BM25: 0.2255},
                                 -6.7715, hook_floor=0.19, search_floor=0.19, order_by_relevance=True),
          "keyword": RelevanceModel("keywords", {BM25: 0.3288}, -5.1648, hook_floor=0.09, search_floor=0.09,
                                    order_by_relevance=False)}
"""The hook's constants before this refit (fitted on `calibration` alone, keyword candidates not listed found
first; `search` still reads these weights): in sample on `calibration`, out of sample on every later file."""
CANDIDATES = {
    "full": [EARLIER["full"], (COSINE, BM25), (COSINE, BM25_PER_WORD), (COSINE, PASSAGE_COSINE, BM25_PER_WORD),
             (COSINE_Z, BM25), (COSINE_Z, PASSAGE_COSINE, BM25), (COSINE, COSINE_Z, BM25), (COSINE, COSINE_GAP, BM25),
             (COSINE_GAP, PASSAGE_COSINE, BM25), (COSINE, BM25, RANK), (COSINE_Z, BM25, RANK),
             (COSINE, BM25_PER_WORD, RANK), (COSINE_Z, WORD_SHARE), (COSINE, COSINE_Z, WORD_SHARE),
             (COSINE, PASSAGE_COSINE, WORD_SHARE), (COSINE, COSINE_Z, BM25, QUERY_WORDS)],
    "keyword": [EARLIER["keyword"], (BM25, RANK), (WORD_SHARE,), (BM25, WORD_SHARE), (BM25, QUERY_WORDS),
                (BM25_PER_WORD,), (BM25, BM25_PER_WORD), (BM25_PER_WORD, RANK), (WORD_SHARE, QUERY_WORDS),
                (BM25, WORD_SHARE, RANK)]}
"""The feature sets tried per path (2-4 features: ~200 prompts carry no more)."""
CHOSEN = "candidates, inner CV"
"""The variant whose choice on every prompt the product ships (absolute_relevance.py)."""
RIDGES = (0.01, 0.1)
"""L2 per row on standardised columns: the earlier fit's, and ten times it."""


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


def constants(pooled: PooledPrompts, model: RelevanceModel, path: str) -> dict:
    """A fixed model and floor on every prompt: the shares per file, pooled and near-topic."""
    weights = model.hook_weights if model.hook_weights is not None else model.weights
    bias = model.hook_bias if model.hook_bias is not None else model.bias
    logistic = Logistic(tuple(weights), tuple(weights.values()), bias)
    order = "relevance" if model.order_by_relevance else "ranking"
    held = dict(zip([q.key for q in pooled.queries],
                    passed(pooled.queries, path, logistic, order, model.hook_floor)))
    return breakdown(pooled, held)


def refit(pooled: PooledPrompts, paths: Sequence[str] = ("full", "keyword")) -> dict:
    """Per path: the constants before and those shipped (both fixed); the earlier features and every candidate
    set, each chosen by both selections, nested-CV'd and left-file-out, and what each chooses on every prompt."""
    found = {}
    for path in paths:
        variants = {"earlier features": [EARLIER[path]], "candidates": CANDIDATES[path]}
        found[path] = {"constants before": {"held_out": constants(pooled, BEFORE[path], path)},
                       "shipped constants": {"held_out": constants(pooled, SHIPPED[path], path)}}
        for name, feature_sets in variants.items():
            for how, chooser in SELECTIONS.items():
                found[path][f"{name}, {how}"] = {
                    "cross_validated": cross_validated(pooled, path, feature_sets, chooser),
                    "leave_file_out": leave_file_out(pooled, path, feature_sets, chooser),
                    "chosen_on_all": on_all(pooled, path, chooser(pooled.queries, path, feature_sets))}
    return found


def on_all(pooled: PooledPrompts, path: str, choice: dict) -> dict:
    """The choice made on every prompt, with its (in-sample) shares per file and pooled."""
    queries = pooled.queries
    held = dict(zip([q.key for q in queries],
                    passed(queries, path, choice["logistic"], choice["order"], choice["floor"])))
    return {k: v for k, v in described(choice).items() if k != "training"} | {"in_sample": breakdown(pooled, held)}
