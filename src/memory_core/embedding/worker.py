"""The session start's only worker thread: it embeds the query, then documents, while the main thread reads.

The main thread never joins it: it waits for results until its deadline and moves on without them. The
thread is a daemon, so an embedder that never answers cannot keep the process alive.
"""

from __future__ import annotations

import atexit
import threading
import weakref
from typing import Optional, Sequence

from memory_core.ports.embedder import Embedder

DOCUMENT_BATCH = 8  # small batches: the main thread can take what is done at any moment
EXIT_GRACE_S = 10.0
_running: "weakref.WeakSet[threading.Thread]" = weakref.WeakSet()


@atexit.register
def _let_workers_finish() -> None:
    """A host process that exits normally lets an abandoned model load finish first: native code still running
    in a daemon thread while the interpreter tears down can abort the process. (Hook processes leave with
    os._exit and skip this.)"""
    import time

    give_up = time.monotonic() + EXIT_GRACE_S  # one grace for all of them, not one each
    for thread in list(_running):
        thread.join(max(0.0, give_up - time.monotonic()))


class EmbeddingWorker:
    """Embeds one query and then any documents handed to it, on one background thread."""

    def __init__(self, embedder: Embedder, batch_size: int = DOCUMENT_BATCH) -> None:
        self._embedder = embedder
        self._batch_size = max(1, batch_size)
        self._lock = threading.Lock()
        self._documents: list[tuple[str, str]] = []
        self._embedded: list[tuple[str, list[float]]] = []
        self._more = threading.Event()
        self._closed = False
        self._stopped = False
        self.query_done = threading.Event()
        self.passages_done = threading.Event()
        self.documents_done = threading.Event()
        self.query_vector: Optional[list[float]] = None
        self._passage_vectors: dict[str, list[float]] = {}
        self.error: Optional[BaseException] = None
        self._thread: Optional[threading.Thread] = None

    def start(self, query: Optional[str], passages: Sequence[str] = ()) -> None:
        """Start the thread; it embeds `query` first (None: no query), then each of `passages`, then documents."""
        self._thread = threading.Thread(target=self._run, args=(query, tuple(passages)), name="iflow-memory-embed",
                                        daemon=True)
        self._thread.start()
        _running.add(self._thread)

    def add_documents(self, documents: Sequence[tuple[str, str]]) -> None:
        """Queue (entry id, text) pairs to embed after the query."""
        with self._lock:
            self._documents.extend(documents)
        self._more.set()

    def close(self) -> None:
        """No more documents will come: the thread ends once the queue is empty."""
        with self._lock:
            self._closed = True
        self._more.set()

    def stop(self) -> None:
        """Embed no further batch (the current one may still finish, unseen)."""
        with self._lock:
            self._stopped = True
            self._closed = True
        self._more.set()

    def passage_vectors(self) -> dict[str, list[float]]:
        """The passages embedded so far, by text (passages come after the query, before any document)."""
        with self._lock:
            return dict(self._passage_vectors)

    def take_embedded(self) -> list[tuple[str, list[float]]]:
        """The documents embedded so far and not taken yet."""
        with self._lock:
            done, self._embedded = self._embedded, []
        return done

    def _run(self, query: Optional[str], passages: tuple[str, ...]) -> None:
        try:
            if query is not None:
                try:
                    self.query_vector = self._embedder.embed_query(query)
                except BaseException as exc:  # noqa: BLE001 - reported to the main thread, never raised here
                    self.error = exc
                    return
                finally:
                    self.query_done.set()
            self.query_done.set()
            for passage in passages:
                if self._stopped:
                    return
                try:
                    vector = self._embedder.embed_query(passage)
                    with self._lock:
                        self._passage_vectors[passage] = vector
                except BaseException as exc:  # noqa: BLE001 - the passages embedded so far are kept
                    self.error = exc
                    return
            self.passages_done.set()
            self._embed_documents()
        finally:
            self.query_done.set()
            self.passages_done.set()
            self.documents_done.set()

    def _next_batch(self) -> Optional[list[tuple[str, str]]]:
        while True:
            with self._lock:
                if self._stopped:
                    return None
                if self._documents:
                    batch, self._documents = self._documents[:self._batch_size], self._documents[self._batch_size:]
                    return batch
                if self._closed:
                    return None
                self._more.clear()
            self._more.wait()

    def _embed_documents(self) -> None:
        while True:
            batch = self._next_batch()
            if batch is None:
                return
            try:
                vectors = self._embedder.embed_documents([text for _, text in batch])
            except BaseException as exc:  # noqa: BLE001 - what was embedded so far is kept
                self.error = exc
                return
            with self._lock:
                if self._stopped:
                    return
                self._embedded.extend((entry_id, vector) for (entry_id, _), vector in zip(batch, vectors))
