"""Rows of the PostgreSQL `entries` table and the core's `Entry`, both ways. A row is selected in the shape the
shared row reader (`sql.rows`) reads (JSON lists and ISO 8601 UTC text), so both stores share it and its checks."""

from __future__ import annotations

from typing import Any, Optional

from memory_adapters.store.postgres.connection import utc
from memory_adapters.store.sql.rows import ENTRY_WIDTH, dumps, row_entry
from memory_core.entries.records import Entry

_ISO = "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'"


def _text_time(column: str) -> str:
    return f"to_char({column} AT TIME ZONE 'UTC', {_ISO})"


COLUMNS = (
    'id, name, description, reasoning, category, keywords::text, "references"::text, observation_count, '
    f"confidence, recall_count, {_text_time('last_recalled_at')}, {_text_time('created_at')}, "
    f"{_text_time('updated_at')}, source, source_project, scope, embedding IS NOT NULL, anchors::text"
)  # sql.rows.FIELDS, in that order

_WRITTEN = ("id, name, description, reasoning, category, keywords, \"references\", observation_count, confidence, "
            "created_at, updated_at, source, source_project, source_user, scope")

# Writing a merged entry back, as one atomic statement: a new row is inserted; a stored one is overwritten only
# if it is still the version the merge read (its xmin), else nothing is written and the caller merges again.
WRITE_ENTRY = f"""
    INSERT INTO entries ({_WRITTEN})
    VALUES (%s, %s, %s, %s, %s, %s::jsonb, %s::jsonb, %s, %s, %s, %s, %s, %s, %s, %s)
    ON CONFLICT (id) DO UPDATE SET
        name = excluded.name, description = excluded.description, reasoning = excluded.reasoning,
        keywords = excluded.keywords, "references" = excluded."references",
        observation_count = excluded.observation_count, confidence = excluded.confidence,
        updated_at = excluded.updated_at, scope = excluded.scope
    WHERE entries.xmin = %s::text::xid
    RETURNING id
"""

SELECT_FOR_MERGE = f"SELECT {COLUMNS}, xmin::text FROM entries WHERE id = %s FOR UPDATE"

RANKING_SELECT = ("SELECT id, category, observation_count, confidence, recall_count, "
                  "extract(epoch FROM updated_at)::float8, embedding IS NOT NULL FROM entries")
SET_META = "INSERT INTO _metadata (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
SCOPED = " WHERE scope IS NULL OR scope = ANY(%s) OR id IN (SELECT id FROM entry_scopes WHERE scope = ANY(%s))"


def write_params(entry: Entry, source_user: str, xmin: Optional[str]) -> tuple:
    """The parameters of WRITE_ENTRY: the merged entry, who writes it, and the version the merge read."""
    return (entry.id, entry.name, entry.description, entry.reasoning, entry.category, dumps(entry.keywords),
            dumps(entry.references), entry.observation_count, entry.confidence, utc(entry.created_at),
            utc(entry.updated_at), entry.source, entry.source_project, source_user, entry.scope, xmin)


def entry_of(row: Any) -> Optional[Entry]:
    """The Entry of one `SELECT COLUMNS` row (extra columns after them are ignored)."""
    return row_entry(tuple(row[:ENTRY_WIDTH]))
