"""NumpyVectorIndex: all stored vectors as one float32 matrix, one matmul per query.

With a cache path, the matrix is kept in one flat file beside the database and read with a single
`np.fromfile`; it is rebuilt whenever the database's `vectors_version` differs from the file's. A session
start only reads: it loads a stale cache's vectors from the database in chunks, gives up at its deadline,
and leaves the rebuild to a write path or the background run (`write_cache=False`). An index that lives across
queries (a long-running host) keeps its matrix while the store's change token stays the same, and while the
`vectors_version` stays the same when it does not (a commit that did not touch vectors).
"""

from __future__ import annotations

import struct
import sys
from typing import TYPE_CHECKING, Optional, Sequence

import numpy as np

from memory_adapters.vectors.float32 import BYTES_PER_DIMENSION, StoredVectors
from memory_adapters.fs.safe_files import PRIVATE, replacing

if TYPE_CHECKING:
    from memory_core.session.deadline import Deadline

MAGIC = b"IFVC2\0\0\0"  # version 2: rows are stored at unit length
_HEADER = struct.Struct("<8sQQ64s")  # magic, count, dimensions, version (utf-8, zero padded)
ID_BYTES = 16
CHUNK_ROWS = 2000  # vectors read per query when the cache is stale: the deadline is checked between chunks


class NumpyVectorIndex:
    """Implements VectorIndex by brute-force cosine similarity."""

    def __init__(self, store: StoredVectors, dimensions: int, cache_path: Optional[str] = None,
                 write_cache: bool = True) -> None:
        self._store = store
        self._dimensions = dimensions
        self._cache_path = cache_path
        self._write_allowed = write_cache
        self._loaded: Optional[tuple[list[str], np.ndarray]] = None
        self._kept: Optional[tuple[object, str, tuple[list[str], np.ndarray]]] = None  # token, version, vectors
        self.loads = 0
        """How many times the vectors were read (from the cache file or the store)."""
        self.cache_fresh = True
        """False after a load found the cache file stale and did not rewrite it."""

    def _rows(self, deadline: Optional[Deadline]):
        """(id, blob) pairs from the store, chunk by chunk when it can; None once the deadline passed."""
        chunked = getattr(self._store, "vectors_after", None)
        if chunked is None:
            return list(self._store.vectors())
        rows: list[tuple[str, bytes]] = []
        last = -1
        while True:
            if deadline is not None and deadline.expired():
                return None
            chunk = chunked(last, CHUNK_ROWS)
            rows.extend((entry_id, blob) for _, entry_id, blob in chunk)
            if len(chunk) < CHUNK_ROWS:
                return rows
            last = chunk[-1][0]

    def _from_store(self, deadline: Optional[Deadline] = None) -> Optional[tuple[list[str], np.ndarray]]:
        width = self._dimensions * BYTES_PER_DIMENSION
        ids: list[str] = []
        blobs: list[bytes] = []
        skipped = 0
        rows = self._rows(deadline)
        if rows is None:
            return None
        for entry_id, blob in rows:
            if not isinstance(blob, (bytes, memoryview)) or len(blob) != width:
                skipped += 1
                continue
            ids.append(entry_id)
            blobs.append(bytes(blob))
        if skipped:
            print(f"iflow-memory: ignored {skipped} {'vector' if skipped == 1 else 'vectors'} of the wrong size", file=sys.stderr)
        if not ids:
            return [], np.zeros((0, self._dimensions), dtype=np.float32)
        return ids, unit_rows(np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(ids), self._dimensions))

    def _version(self) -> Optional[str]:
        version = getattr(self._store, "vectors_version", None)
        return version() if callable(version) else None

    def _read_cache(self, version: str) -> Optional[tuple[list[str], np.ndarray]]:
        try:
            with open(self._cache_path, "rb") as handle:  # type: ignore[arg-type]
                magic, count, dims, stamp = _HEADER.unpack(handle.read(_HEADER.size))
                if magic != MAGIC or dims != self._dimensions or stamp.rstrip(b"\0").decode() != version:
                    return None
                raw_ids = handle.read(count * ID_BYTES)
                matrix = np.fromfile(handle, dtype="<f4", count=count * dims)
        except (OSError, struct.error, UnicodeDecodeError, ValueError):
            return None
        if len(raw_ids) != count * ID_BYTES or matrix.size != count * dims:
            return None
        ids = [raw_ids[i:i + ID_BYTES].decode("ascii", "replace") for i in range(0, len(raw_ids), ID_BYTES)]
        return ids, matrix.reshape(count, dims)

    def _write_cache(self, version: str, ids: list[str], matrix: np.ndarray) -> None:
        if any(len(i) != ID_BYTES for i in ids):
            return
        path: str = self._cache_path  # type: ignore[assignment]
        try:  # a cache: a link at its path is replaced, and it is not worth an fsync
            with replacing(path, PRIVATE, refuse_links=False, sync=False, legacy_pattern=".vectors-*") as out:
                out.write(_HEADER.pack(MAGIC, len(ids), self._dimensions, version.encode()[:64]))
                out.write("".join(ids).encode("ascii"))
                out.write(np.ascontiguousarray(matrix, dtype="<f4").tobytes())
        except OSError:
            pass  # a cache is an optimisation; the database stays the truth

    def _change_token(self) -> object:
        token = getattr(self._store, "change_token", None)
        return token() if callable(token) else None

    def _current(self) -> tuple[list[str], np.ndarray]:
        """The vectors as of now, kept from the last load when nothing they depend on changed since."""
        token, kept = self._change_token(), self._kept
        if token is not None and kept is not None and kept[0] == token:
            return kept[2]
        version = self._version()  # read before the vectors: a change while they load is seen by the next query
        if token is not None and kept is not None and version is not None and version == kept[1]:
            self._kept = (token, version, kept[2])
            return kept[2]
        loaded = self._matrix()
        if token is not None and version is not None and loaded is not None:
            self._kept = (token, version, loaded)
        return loaded  # type: ignore[return-value]

    def _matrix(self, deadline: Optional[Deadline] = None) -> Optional[tuple[list[str], np.ndarray]]:
        self.loads += 1
        version = self._version() if self._cache_path else None
        if version is None:
            return self._from_store(deadline)
        cached = self._read_cache(version)
        if cached is not None:
            return cached
        self.cache_fresh = False
        loaded = self._from_store(deadline)
        if loaded is not None and self._write_allowed and self._version() == version:
            self._write_cache(version, *loaded)  # nothing changed while reading: safe to cache
            self.cache_fresh = True
        return loaded

    def prepare(self, deadline: Optional[Deadline] = None) -> bool:
        """Load the vectors ahead of the query; False when the deadline passed first (nothing is kept)."""
        if self._loaded is None:
            self._loaded = self._matrix(deadline)
        return self._loaded is not None

    def refresh(self) -> int:
        """Bring the cache file up to date now (write paths do this so session starts never have to)."""
        loaded = self._matrix()
        return len(loaded[0]) if loaded else 0

    def similarities(self, query: Sequence[float]) -> dict[str, float]:
        """Return {id: cosine} for every stored vector of the right size."""
        ids, matrix = self._loaded or self._current()
        if not ids:
            return {}
        vector = np.asarray(query, dtype=np.float32)
        if vector.shape != (self._dimensions,):
            raise ValueError(f"query has {vector.shape} dims, index has {self._dimensions}")
        norm = float(np.linalg.norm(vector))
        # einsum, not `matrix @ vector`: OpenBLAS runs this product on all cores and its spinning threads fight the
        # query embedder's (onnxruntime) on a small machine: about 6 ms more per search at 10k x 384 on 2 cores.
        scores = np.einsum("ij,j->i", matrix, vector) / (norm if norm > 0 else 1.0)  # rows are unit length already
        return dict(zip(ids, scores.tolist()))


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero). Stored vectors are normalised on write already; this
    keeps foreign or legacy rows honest, once per cache build instead of once per query."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.where(norms > 0, norms, 1.0)).astype(np.float32, copy=False)
