"""Synthetic stores: the product's schema, rows bulk-inserted in one transaction, the embedding space pinned and
the flat vector cache written (as the write paths and the background run keep it). The product's modules are
imported inside the functions, so a caller can first point sys.path at another checkout's src."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Iterable, Sequence

LOCAL_SPACE = ("local", "all-MiniLM-L6-v2-int8", 384)  # what the bundled model pins
CATEGORIES = ("anti-patterns", "heuristics", "patterns")
HEADER_PREFIX = {"anti-patterns": "Anti-Pattern: ", "patterns": "Pattern: ", "heuristics": ""}
ROW_COLUMNS = ('id, name, description, reasoning, category, keywords, "references", observation_count, confidence, '
               "recall_count, created_at, updated_at, source, source_project, embedding")


def write_store(db: Path, rows: Iterable[tuple], space: tuple[str, str, int],
                imported_roots: Sequence[Path] = ()) -> None:
    """Create the schema with SqliteEntryStore, insert `rows` (ROW_COLUMNS, FTS5 triggers included), pin `space`,
    mark `imported_roots` as already imported and write the vector cache file."""
    from memory_adapters.store.sqlite.store import SqliteEntryStore

    db.parent.mkdir(parents=True, exist_ok=True)
    SqliteEntryStore(str(db)).close()
    conn = sqlite3.connect(str(db), isolation_level=None)
    conn.execute("PRAGMA synchronous=OFF")
    conn.execute("BEGIN")
    conn.executemany(f"INSERT INTO entries ({ROW_COLUMNS}) VALUES ({', '.join('?' * 15)})", rows)
    meta = [("embedding_provider", space[0]), ("embedding_model", space[1]), ("embedding_dimensions", str(space[2]))]
    meta += [(f"imported:{os.path.abspath(root)}", "2026-01-01T00:00:00Z") for root in imported_roots]
    conn.executemany("INSERT INTO _metadata(key, value) VALUES (?, ?) "
                     "ON CONFLICT(key) DO UPDATE SET value = excluded.value", meta)
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    write_vector_cache(db, space[2])


def write_vector_cache(db: Path, dims: int) -> None:
    """Write the flat vector cache file beside the database (session starts only read it)."""
    from memory_adapters.vectors.numpy_vector_index import NumpyVectorIndex
    from memory_adapters.store.sqlite.store import SqliteEntryStore

    store = SqliteEntryStore(str(db))
    NumpyVectorIndex(store, dims, cache_path=str(db) + ".vectors").refresh()
    store.close()


def size_mb(db: Path) -> float:
    """The database file's size in MB, one decimal."""
    return round(db.stat().st_size / 2**20, 1)
