"""Embed pending entries, and re-embed into a new space without ever mixing two spaces."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from memory_core.embedding.normalising import document_text
from memory_core.errors import EmbeddingError, RateLimited
from memory_core.ports.embedder import Embedder
from memory_core.ports.entry_store import EntryStore
from memory_core.ports.staging_vector_store import StagingVectorStore
from memory_core.embedding.space import EmbeddingSpace, pin_space, pinned_space, staged_space

BATCH_SIZE = 50


@dataclass
class EmbedReport:
    """What one run did and what is left."""

    embedded: int = 0
    remaining: int = 0
    rate_limited: bool = False
    error: Optional[str] = None
    migrating_to: Optional[str] = None
    promoted: bool = False


class EmbedPending:
    """Gives every entry a vector in the target space, in batches stored as they complete.

    Same space as the pinned one (or none pinned): vectors go straight to the entries.
    Another space, chosen explicitly: vectors are staged aside and swapped in by one transaction
    once every entry has one, so queries never compare vectors of two models.
    """

    def __init__(self, store: EntryStore, embedder: Embedder, allow_reembed: bool = True,
                 batch_size: int = BATCH_SIZE) -> None:
        self._batch_size = max(1, batch_size)
        self._store = store
        self._embedder = embedder
        self._allow_reembed = allow_reembed
        self._first: list[str] = []

    def run(self, max_entries: Optional[int] = BATCH_SIZE, deadline_s: Optional[float] = None,
            progress: Optional[Callable[[int, int], None]] = None, first: Sequence[str] = ()) -> EmbedReport:
        """Embed up to `max_entries` (None = all) before `deadline_s` seconds; ids in `first` go first."""
        self._first = list(first)
        target = EmbeddingSpace.of(self._embedder)
        pinned = pinned_space(self._store)
        started = time.monotonic()
        if pinned is None or pinned == target:
            if pinned is None:
                pin_space(self._store, target)
            return self._loop(self._store.pending_ids, self._store.set_vector, max_entries, deadline_s,
                              started, progress, EmbedReport())
        if not self._allow_reembed or not isinstance(self._store, StagingVectorStore):
            return EmbedReport(remaining=len(self._store.pending_ids(1_000_000)),
                               error=f"database is pinned to {pinned.label}")
        staging: StagingVectorStore = self._store
        if staged_space(self._store) != target:
            staging.start_staging(target)
        report = self._loop(staging.unstaged_ids, staging.set_staged_vector, max_entries, deadline_s, started,
                            progress, EmbedReport(migrating_to=target.label))
        if report.remaining == 0 and not report.rate_limited and report.error is None:
            report.promoted = staging.promote_staged(target)
        return report

    def _loop(self, pending: Callable[[int], list[str]], store_vector: Callable[[str, Sequence[float]], None],
              max_entries: Optional[int], deadline_s: Optional[float], started: float,
              progress: Optional[Callable[[int, int], None]], report: EmbedReport) -> EmbedReport:
        total = len(pending(1_000_000))
        budget = total if max_entries is None else min(max_entries, total)
        while report.embedded < budget:
            if deadline_s is not None and time.monotonic() - started > deadline_s:
                break
            size = min(self._batch_size, budget - report.embedded)
            ids = pending(size)
            if self._first:
                waiting = set(pending(1_000_000))
                preferred = [i for i in self._first if i in waiting]
                self._first = []
                ids = (preferred + [i for i in ids if i not in preferred])[:size]
            entries = self._store.get_many(ids)
            if not entries:
                break
            texts = [document_text(e.name, e.description, e.reasoning, e.keywords) for e in entries]
            try:
                vectors = self._embedder.embed_documents(texts)
            except RateLimited as exc:
                for entry, vector in zip(entries, exc.partial):  # keep what the provider already returned
                    store_vector(entry.id, vector)
                report.embedded += min(len(exc.partial), len(entries))
                report.rate_limited = True
                break
            except EmbeddingError as exc:
                report.error = str(exc)
                break
            for entry, vector in zip(entries, vectors):  # each stored outside any provider call
                store_vector(entry.id, vector)
            report.embedded += len(entries)
            if progress:
                progress(report.embedded, budget)
        report.remaining = len(pending(1_000_000))
        return report
