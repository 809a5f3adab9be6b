"""Find the stored learnings a draft repeats in other words (ADR 26): the nearest entries by the product's own
vector search, scored by `memory_core.ranking.near_duplicates`; without vectors, the keyword search's hits, judged
by the stricter keyword-only rule."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from memory_core.embedding.normalising import document_text
from memory_core.entries.records import Entry
from memory_core.errors import EmbeddingError
from memory_core.ports.embedder import Embedder
from memory_core.ports.entry_store import EntryStore
from memory_core.ports.keyword_index import KeywordIndex
from memory_core.ports.vector_index import VectorIndex
from memory_core.ranking.fts_query import sanitise_fts_query
from memory_core.ranking.near_duplicates import CANDIDATES, MIN_CANDIDATE_COSINE, near_duplicates


@dataclass(frozen=True)
class Neighbour:
    """A stored learning that says what a draft says: its id, name and near-duplicate score."""

    entry_id: str
    name: str
    score: float


class FindNearDuplicates:
    """The near-duplicates of a draft among the stored entries this project sees."""

    def __init__(self, store: EntryStore, embedder: Optional[Embedder] = None,
                 vector_index: Optional[VectorIndex] = None, keyword_index: Optional[KeywordIndex] = None,
                 scopes: Optional[Sequence[str]] = None) -> None:
        self._store = store
        self._embedder = embedder
        self._vector_index = vector_index
        self._keyword_index = keyword_index
        self._scopes = scopes
        self.problem: Optional[str] = None
        """Why the vector search did not run (the keyword-only rule judged instead), if it did not."""

    def run(self, name: str, description: str, category: str, reasoning: str = "",
            keywords: Sequence[str] = (), exclude: Sequence[str] = ()) -> list[Neighbour]:
        """The near-duplicates, best first; ids in `exclude` (the draft's own) are never one."""
        cosines = self._nearest(document_text(name, description, reasoning, keywords), exclude)
        if cosines is None:
            candidates: list[tuple[Entry, Optional[float]]] = [(e, None) for e in self._keyword_hits(
                f"{name} {description}", exclude)]
        else:
            found = {e.id: e for e in self._visible(self._store.get_many(list(cosines)))}
            candidates = [(found[i], cosines[i]) for i in cosines if i in found]
        return [Neighbour(entry.id, entry.name, score)
                for entry, score in near_duplicates(name, description, category, candidates, exclude)]

    def _nearest(self, text: str, exclude: Sequence[str]) -> Optional[dict[str, float]]:
        """{id: cosine} of the closest stored entries worth scoring; None when there is no vector search."""
        if self._embedder is None or self._vector_index is None:
            self.problem = "no vector search"
            return None
        try:
            # The document side, as stored vectors were made: a draft and an entry compare like two entries.
            vector = self._embedder.embed_documents([text])[0]
            similarities = self._vector_index.similarities(vector)
        except EmbeddingError as exc:
            self.problem = f"vector search failed: {exc}"
            return None
        close = sorted(((cos, i) for i, cos in similarities.items()
                        if cos >= MIN_CANDIDATE_COSINE and i not in exclude), reverse=True)[:CANDIDATES]
        return {i: cos for cos, i in close}

    def _keyword_hits(self, text: str, exclude: Sequence[str]) -> list[Entry]:
        """The entries the keyword search ranks first for the draft's own words."""
        index = self._keyword_index
        query = sanitise_fts_query(text)
        if index is None or query is None or not index.keyword_search_available:
            return []
        hits = index.keyword_search(query, CANDIDATES)
        return self._visible(self._store.get_many([i for i in hits if i not in exclude]))

    def _visible(self, entries: Sequence[Entry]) -> list[Entry]:
        """Only entries this project's sessions see: a learning kept to another project is not this one's news."""
        if self._scopes is None:
            return list(entries)
        return [e for e in entries if e.scope is None or e.scope in self._scopes]
