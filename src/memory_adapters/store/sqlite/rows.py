"""The SQLite spelling of the `entries` rows: the select the shared row reader (`sql.rows`) reads, the write of a
merged entry, the ranking fields read from an index."""

from __future__ import annotations

import sqlite3

from memory_adapters.store.sql.rows import dumps
from memory_adapters.store.sqlite.connection import to_text
from memory_core.entries.records import Entry

COLUMNS = (
    'id, name, description, reasoning, category, keywords, "references", observation_count, confidence, '
    "recall_count, last_recalled_at, created_at, updated_at, source, source_project, scope, "
    "embedding IS NOT NULL AS has_embedding, anchors"
)  # sql.rows.FIELDS, in that order

# Writing a merged entry back: every field the merge rules decide; counters of recalls and the vector stay.
WRITE_ENTRY = """
    INSERT INTO entries (id, name, description, reasoning, category, keywords, "references",
        observation_count, confidence, recall_count, created_at, updated_at, source, source_project, scope)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?)
    ON CONFLICT(id) DO UPDATE SET
        name = excluded.name, description = excluded.description, reasoning = excluded.reasoning,
        keywords = excluded.keywords, "references" = excluded."references",
        observation_count = excluded.observation_count, confidence = excluded.confidence,
        updated_at = excluded.updated_at, scope = excluded.scope
"""

RANKING_SELECT = (
    "SELECT id, category, "
    "CASE WHEN typeof(observation_count) = 'integer' AND observation_count > 0 THEN observation_count ELSE 1 END, "
    "CASE WHEN confidence IN ('high', 'medium', 'low') THEN confidence ELSE 'medium' END, "
    "CASE WHEN typeof(recall_count) = 'integer' AND recall_count > 0 THEN recall_count ELSE 0 END, "
    # julianday() reads ISO 8601 with Z, an offset or neither (naive = UTC); unreadable -> the epoch.
    "COALESCE(ROUND((julianday(COALESCE(updated_at, created_at)) - 2440587.5) * 86400.0, 3), 0.0), "
    "1 "
    "FROM entries WHERE typeof(id) = 'text' AND category IN ('anti-patterns', 'heuristics', 'patterns')"
)

SET_META = "INSERT INTO _metadata(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"


def entry_params(entry: Entry) -> tuple:
    """The parameters of WRITE_ENTRY for one entry."""
    return (entry.id, entry.name, entry.description, entry.reasoning, entry.category, dumps(entry.keywords),
            dumps(entry.references), entry.observation_count, entry.confidence, to_text(entry.created_at),
            to_text(entry.updated_at), entry.source, entry.source_project, entry.scope)


def blob(vector: bytes) -> sqlite3.Binary:
    """A vector's bytes as an SQLite BLOB parameter."""
    return sqlite3.Binary(vector)
