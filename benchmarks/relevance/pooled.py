"""Every judged prompt file over one store, each prompt's candidates exactly as the product's search lists them
(issue 23): the calibration reads the product's own raw signals, so the two cannot drift."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from benchmarks.common.paths import DATA
from benchmarks.relevance.corpus_store import BuiltStore, build_store
from benchmarks.relevance.floor_features import Candidate, QueryCandidates, TermWeights
from benchmarks.relevance.sets import PROMPTS, prompts_set
from memory_core.ranking.relevance_signals import BM25

PROMPT_FILES = {"calibration": PROMPTS, "heldout": DATA / "relevance_prompts_heldout.json",
                "b": DATA / "relevance_prompts_b.json", "c": DATA / "relevance_prompts_c.json"}
"""Source name -> judged prompt file over the real bank (those present are pooled)."""
BM25_IDF = "bm25_idf"
"""BM25 over the query's idf sum (benchmark only: the product would need each word's document count)."""
NEAR_TOPIC = {"calibration": ("u13", "u14", "u15", "u16"), "heldout": ("hu",),
              "b": ("bu06", "bu07", "bu08", "bu09", "bu10"), "c": ("cu06", "cu07", "cu08", "cu09", "cu10")}
"""Unanswerable prompts close to the bank's topics (key prefixes, as each file's `about` names them), where a floor
errs most."""


@dataclass
class PooledPrompts:
    """Every prompt's candidates on both paths, and which file each came from."""

    queries: list[QueryCandidates]
    source: dict[str, str]
    """Prompt key (`<source>:<id>`) -> source name."""

    def near_topic(self, key: str) -> bool:
        """Whether an unanswerable prompt is one of NEAR_TOPIC."""
        source, _, own = key.partition(":")
        return any(own.startswith(p) for p in NEAR_TOPIC.get(source, ()))


def present_files(files: Optional[dict[str, Path]] = None) -> dict[str, Path]:
    """The prompt files that exist here."""
    return {name: path for name, path in (files or PROMPT_FILES).items() if path.is_file()}


def product_searches(built: BuiltStore):
    """The product's spec-ranking RetrieveAndRank over the built store, with the model and without it, and the
    store (the caller closes it)."""
    from benchmarks.relevance.corpus_store import FixedClock
    from memory_apps.config import MemoryConfig
    from memory_apps.wiring.container import build_container
    from memory_core.ranking.scoring import Weights
    from memory_core.usecases.retrieve import RetrieveAndRank

    container = build_container(MemoryConfig(embedding_provider="local"), built.store_dir)
    store = container.store()
    plan = container.embedding_plan(want_target=False)
    index = container.vector_index(dimensions=plan.query.dimensions)
    clock = FixedClock(built.built_at)
    full = RetrieveAndRank(store=store, clock=clock, weights=Weights(), keyword_index=store, embedder=plan.query,
                           vector_index=index, references=store)
    keyword = RetrieveAndRank(store=store, clock=clock, weights=Weights(), keyword_index=store, references=store)
    return {"full": full, "keyword": keyword}, store


def candidates_of(searches, key: str, prompt: str, relevant: dict[str, int],
                  weights: Optional[TermWeights] = None) -> QueryCandidates:
    """The prompt's candidates on each path: what recall_for_prompt's search returns, with its signals (and,
    with `weights`, BM25 over the query's idf sum: a benchmark-only signal, the product has no word counts)."""
    from memory_core.usecases.recall import PROMPT_CANDIDATES, prompt_query

    found = QueryCandidates(key, relevant)
    text = prompt_query(prompt)
    idf_sum = (weights.idf_sum(text) or 1.0) if weights is not None else 1.0
    for path, retrieve in searches.items():
        result = retrieve.search(text, limit=PROMPT_CANDIDATES)
        if path == "full" and not result.vector.ran:
            raise RuntimeError(f"{key}: the vector signal did not run: {result.vector.reason}")
        found.paths[path] = [Candidate(r.entry.id, relevant.get(r.entry.id, 0), dict(r.signals))
                             for r in result.selected]
        if weights is not None:
            for c in found.paths[path]:
                c.features[BM25_IDF] = c.features[BM25] / idf_sum
    return found


def pooled_prompts(files: Optional[dict[str, Path]] = None, workdir: Optional[str] = None) -> PooledPrompts:
    """Build the bank's store once and list every present file's prompts' candidates on both paths."""
    sets = {name: prompts_set(path) for name, path in present_files(files).items()}
    with tempfile.TemporaryDirectory(prefix="iflow-pooled-") as tmp:
        built = build_store(next(iter(sets.values())), workdir or tmp)
        searches, store = product_searches(built)
        weights = TermWeights(store, len(next(iter(sets.values())).drafts))
        try:
            queries, source = [], {}
            for name, relevance_set in sets.items():
                for q in relevance_set.queries + relevance_set.unanswerable:
                    key = f"{name}:{q.key}"
                    relevant = {built.ids.get(k, k): g for k, g in q.relevant.items()}
                    queries.append(candidates_of(searches, key, q.session.text or "", relevant, weights))
                    source[key] = name
        finally:
            store.close()
    return PooledPrompts(queries, source)


def sources(pooled: PooledPrompts) -> Sequence[str]:
    """The source names in file order."""
    return list(dict.fromkeys(pooled.source.values()))
