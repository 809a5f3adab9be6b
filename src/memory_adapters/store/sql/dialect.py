"""SqlDialect: what the SQL stores spell differently in the reads and outbox code they share."""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Optional

from memory_core.entries.records import Entry


class SqlDialect(NamedTuple):
    """One SQL store's spelling: its driver's placeholder, its entry columns and how it turns a row into an entry."""

    mark: str  # the driver's parameter placeholder: `?` (sqlite3) or `%s` (psycopg)
    columns: str  # the select list that `entry_of` reads
    stored_order: str  # the column that orders entries as they were first stored
    entry_of: Callable[[Any], Optional[Entry]]  # None for a row that breaks the model's rules
