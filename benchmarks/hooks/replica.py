"""What the calibration says the prompt hook shows, computed in this process the way the relevance suite fitted
it (its candidates and raw features, the product's RelevanceModel and floor): the reference the hook process is
compared with, prompt by prompt, so a gap can be traced to the prompt and the entry."""

from __future__ import annotations

from typing import Optional

from benchmarks.relevance.corpus_store import BuiltStore
from benchmarks.relevance.floor_features import TermWeights, query_candidates
from benchmarks.relevance.main import open_built
from benchmarks.relevance.sets import RelevanceSet
from benchmarks.hooks.shares import LIMIT
from memory_core.ranking.absolute_relevance import KEYWORDS_ONLY, WITH_MODEL

MODELS = {"full": WITH_MODEL, "keyword": KEYWORDS_ONLY}


def chosen(candidates, model) -> list[tuple[str, float]]:
    """recall_for_prompt's choice among one path's candidates: (id, relevance) of at most LIMIT over the floor."""
    scored = [(c.entry_id, model.relevance(c.features)) for c in candidates]
    if model.order_by_relevance:  # stable, as the product's sort
        scored = sorted(scored, key=lambda pair: -pair[1])
    else:
        scored = scored[:LIMIT]
    return [(i, round(r, 4)) for i, r in scored if r >= model.hook_floor][:LIMIT]


def best_graded(candidates, model, grades: dict[str, int]) -> Optional[dict]:
    """Where the ranking put the first grade-2 learning among the candidates (1-based), and its relevance; None
    when it is not among them: why a prompt that should get one did not (not found, under the floor, crowded out)."""
    for position, c in enumerate(candidates, start=1):
        if grades.get(c.entry_id) == 2:
            return {"position": position, "relevance": round(model.relevance(c.features), 4)}
    return None


def replica_choices(relevance_set: RelevanceSet, built: BuiltStore, paths) -> dict[str, dict[str, dict]]:
    """Per path, per prompt key: the (id, relevance) pairs the calibration's computation shows (`shown`), and
    where its first grade-2 learning stood (`grade2`, see `best_graded`)."""
    scorer, queries, nothing, store = open_built(relevance_set, built)
    try:
        weights = TermWeights(store, len(relevance_set.drafts))
        pairs = [(q, s, relevant) for q, (s, relevant) in zip(relevance_set.queries, queries)]
        pairs += [(q, s, relevant) for q, (_, s, relevant) in zip(relevance_set.unanswerable, nothing)]
        found: dict[str, dict[str, dict]] = {path: {} for path in paths}
        for q, s, relevant in pairs:
            candidates = query_candidates(q.key, s, relevant, scorer, weights, q.session)
            for path in paths:
                mine = candidates.paths[path]
                found[path][q.key] = {"shown": chosen(mine, MODELS[path]),
                                      "grade2": best_graded(mine, MODELS[path], relevant)}
        return found
    finally:
        store.close()
