"""The 10k stores the viewer benchmark browses: the synthetic rows of the other benchmarks, with a spread of
sources, projects, scopes and recall times (the synthetic rows all come from one source and were never shown), on
SQLite and on a PostgreSQL database, the same rows in both."""

from __future__ import annotations

from pathlib import Path

PROJECTS = ("alpha", "beta", "gamma", "delta", "", "", "")  # '' : no project (None)
SOURCES = ("retro", "session-capture", "manual", "import")
SCOPE = "git:" + "b" * 40  # every tenth entry is kept to one repository


def viewer_rows(count: int) -> list[tuple]:
    """`count` rows (`ROW_COLUMNS` without the embedding, then scope and last_recalled_at), identical per size."""
    from benchmarks.common.fixtures import synthetic_rows

    rows = []
    for n, row in enumerate(synthetic_rows(count)):
        (entry_id, name, description, reasoning, category, keywords, references, observations, confidence,
         recalls, created, updated, _source, _project) = row
        rows.append((entry_id, name, description, reasoning, category, keywords, references, observations,
                     confidence, recalls, created, updated, SOURCES[n % 4], PROJECTS[n % 7] or None,
                     SCOPE if n % 10 == 0 else None, updated if recalls else None))
    return rows


def build_sqlite(db: Path, count: int) -> int:
    """A SQLite store of `count` viewer rows with random unit vectors; how many rows it holds."""
    import sqlite3

    from benchmarks.common.fixtures import unit_vectors
    from benchmarks.common.store import LOCAL_SPACE, write_store

    rows = viewer_rows(count)
    matrix = unit_vectors(len(rows), LOCAL_SPACE[2], seed=len(rows))
    write_store(db, (row[:14] + (matrix[i].tobytes(),) for i, row in enumerate(rows)), LOCAL_SPACE)
    conn = sqlite3.connect(str(db))
    with conn:
        conn.executemany("UPDATE entries SET scope = ?, last_recalled_at = ? WHERE id = ?",
                         [(row[14], row[15], row[0]) for row in rows])
    conn.close()
    return len(rows)


def build_postgres(url: str, count: int) -> int:
    """The same rows and vectors in the (empty) PostgreSQL database at `url`, migrated by the store, then
    VACUUM ANALYZE; how many rows it holds."""
    import psycopg

    from benchmarks.common.fixtures import unit_vectors
    from benchmarks.common.store import LOCAL_SPACE
    from memory_adapters.store.postgres.store import PostgresEntryStore

    PostgresEntryStore(url).close()
    rows = viewer_rows(count)
    matrix = unit_vectors(len(rows), LOCAL_SPACE[2], seed=len(rows))
    columns = ('id, name, description, reasoning, category, keywords, "references", observation_count, '
               "confidence, recall_count, created_at, updated_at, source, source_project, scope, last_recalled_at, "
               "embedding")
    marks = ", ".join(["%s"] * 16 + ["%s::vector"])
    with psycopg.connect(url) as conn:
        with conn.cursor() as cursor:
            cursor.executemany(f"INSERT INTO entries ({columns}) VALUES ({marks})",
                               [row + ("[" + ",".join(f"{x:.6f}" for x in matrix[i]) + "]",)
                                for i, row in enumerate(rows)])
        space = (("embedding_provider", LOCAL_SPACE[0]), ("embedding_model", LOCAL_SPACE[1]),
                 ("embedding_dimensions", str(LOCAL_SPACE[2])))
        conn.cursor().executemany("INSERT INTO _metadata (key, value) VALUES (%s, %s) "
                                  "ON CONFLICT (key) DO UPDATE SET value = excluded.value", space)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE entries")
    return len(rows)
