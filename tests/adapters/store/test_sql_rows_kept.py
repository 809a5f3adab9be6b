"""The shared row reader keeps the entries of rows it read (their secret scan is the cost of a read): PostgreSQL's
rows, whose `embedding IS NOT NULL` arrives as a bool, are kept as SQLite's are (the viewer reads pages again)."""

from __future__ import annotations

from memory_adapters.store.sql import rows


def pg_row(description: str) -> tuple:
    """One row of FIELDS as psycopg returns it (has_embedding a bool)."""
    return ("0123456789abcdef", "CSV rows", description, "", "patterns", '["csv"]', "[]", 1, "medium", 0, None,
            "2026-11-01T12:00:00Z", "2026-11-01T12:00:00Z", "manual", None, None, True, None)


def test_a_postgres_row_read_again_is_not_scanned_again(monkeypatch):
    scans = []
    real = rows._holds_secret
    monkeypatch.setattr(rows, "_holds_secret", lambda data: scans.append(data["id"]) or real(data))
    row = pg_row("Kept between two reads of the same page")
    first, second = rows.row_entry(row), rows.row_entry(row)
    assert first == second and first.has_embedding is True
    assert len(scans) == 1

