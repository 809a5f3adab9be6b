"""What the calibration says the prompt hook shows, computed in this process the way the relevance suite fitted
it (its candidates and raw features, the product's RelevanceModel and floor): the reference the hook process is
compared with, prompt by prompt, so a gap can be traced to the prompt and the entry."""

from __future__ import annotations

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


def replica_choices(relevance_set: RelevanceSet, built: BuiltStore, paths) -> dict[str, dict[str, list]]:
    """Per path, per prompt key: the (id, relevance) pairs the calibration's computation shows."""
    scorer, queries, nothing, store = open_built(relevance_set, built)
    try:
        weights = TermWeights(store, len(relevance_set.drafts))
        pairs = [(q, s, relevant) for q, (s, relevant) in zip(relevance_set.queries, queries)]
        pairs += [(q, s, relevant) for q, (_, s, relevant) in zip(relevance_set.unanswerable, nothing)]
        found: dict[str, dict[str, list]] = {path: {} for path in paths}
        for q, s, relevant in pairs:
            candidates = query_candidates(q.key, s, relevant, scorer, weights, q.session)
            for path in paths:
                found[path][q.key] = chosen(candidates.paths[path], MODELS[path])
        return found
    finally:
        store.close()
