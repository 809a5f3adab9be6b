"""Building a benchmark database: the product's schema (migrated by PostgresEntryStore), rows streamed in one
binary COPY with the secondary indexes and the per-row vector trigger off, then those indexes, then the
product's own HNSW index (`ensure_hnsw_index`) with the build settings, then VACUUM ANALYZE; each step timed.
A `bench_build` row marks a complete build, so a database is reused by later runs. The SQLite twin is written
from the same rows with the shared `write_store`."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

from benchmarks.common.store import LOCAL_SPACE, size_mb, write_store
from benchmarks.postgres import copy_binary
from benchmarks.postgres.corpus import generate, sqlite_row
from benchmarks.postgres.server import BUILD_SETTINGS, Server

CORPUS_VERSION = 1  # bump when corpus.py changes what a size generates: older builds are then rebuilt


def database_name(size: int) -> str:
    """The benchmark database of this size."""
    return f"iflow_bench_{size}"


def marker(server: Server, size: int):
    """The build record of a complete database of this size and corpus version, else None."""
    import psycopg

    if not server.exists(database_name(size)):
        return None
    with psycopg.connect(server.url(database_name(size)), autocommit=True) as conn:
        if conn.execute("SELECT to_regclass('bench_build')").fetchone()[0] is None:
            return None
        row = conn.execute("SELECT info FROM bench_build WHERE version = %s", (CORPUS_VERSION,)).fetchone()
    return row[0] if row else None


def build_postgres(server: Server, size: int, pool, texts, own_scope: str, project: Path, log) -> dict:
    """The database of `size` entries: reused when a complete build is marked, else built; its build record."""
    found = marker(server, size)
    if found:
        log(f"{size:,}: reusing the database built {found['built_at']} ({found['total_s']} s)")
        return {**found, "reused": True}
    import psycopg
    from memory_adapters.store.postgres.store import PostgresEntryStore

    url = server.recreate(database_name(size))
    started = time.perf_counter()
    PostgresEntryStore(url).close()  # the product's migrations
    with psycopg.connect(url, autocommit=True) as conn:
        indexes = conn.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'entries' AND "
                               "indexdef NOT LIKE 'CREATE UNIQUE%'").fetchall()
        for name, _ in indexes:
            conn.execute(f'DROP INDEX "{name}"')
        conn.execute("ALTER TABLE entries DISABLE TRIGGER vectors_ai")  # one _metadata update per row otherwise
        info = {"entries": 0, "generate_s": 0.0}
        t0 = time.perf_counter()
        with conn.transaction(), conn.cursor().copy(f"COPY entries ({copy_binary.COLUMNS}) FROM STDIN "
                                                    "(FORMAT BINARY)") as copy:
            copy.write(copy_binary.SIGNATURE)
            for rows in _timed_chunks(generate(size, pool, texts, own_scope), info):
                copy.write(copy_binary.encode(rows))
                if info["entries"] % 100_000 < len(rows):
                    log(f"{size:,}: {info['entries']:,} rows copied ({time.perf_counter() - t0:.0f} s)")
            copy.write(copy_binary.TRAILER)
        info["load_s"] = round(time.perf_counter() - t0, 1)
        _finish_rows(conn, own_scope, project)
        t0 = time.perf_counter()
        for name, definition in indexes:
            conn.execute(definition)
        info["secondary_indexes_s"] = round(time.perf_counter() - t0, 1)
        log(f"{size:,}: loaded in {info['load_s']} s, secondary indexes {info['secondary_indexes_s']} s; HNSW next")
        info.update(_hnsw(conn))
        t0 = time.perf_counter()
        conn.execute("VACUUM ANALYZE entries")
        conn.execute("VACUUM ANALYZE entry_scopes")
        info["vacuum_analyze_s"] = round(time.perf_counter() - t0, 1)
        info.update(_sizes(conn))
        info.update(total_s=round(time.perf_counter() - started, 1), built_at=time.strftime("%Y-%m-%d %H:%M:%S"),
                    size=size)
        conn.execute("CREATE TABLE bench_build (version INTEGER PRIMARY KEY, info JSONB NOT NULL)")
        conn.execute("INSERT INTO bench_build VALUES (%s, %s::jsonb)", (CORPUS_VERSION, json.dumps(info)))
    log(f"{size:,}: built in {info['total_s']} s (HNSW {info['hnsw_s']} s)")
    return {**info, "reused": False}


def _timed_chunks(chunks, info: dict):
    """The chunks, counting rows and the time spent generating them."""
    while True:
        t0 = time.perf_counter()
        rows = next(chunks, None)
        info["generate_s"] = round(info["generate_s"] + time.perf_counter() - t0, 1)
        if rows is None:
            return
        info["entries"] += len(rows)
        yield rows


def _finish_rows(conn, own_scope: str, project: Path) -> None:
    """Extra scopes (one scoped entry in 20 is also the benchmark project's), the pinned local space, the
    project marked as imported, and the vectors trigger back on."""
    conn.execute("INSERT INTO entry_scopes (id, scope) SELECT id, %s FROM entries WHERE scope IS NOT NULL "
                 "AND scope <> %s AND abs(hashtext(id)) %% 20 = 0", (own_scope, own_scope))
    meta = [("embedding_provider", LOCAL_SPACE[0]), ("embedding_model", LOCAL_SPACE[1]),
            ("embedding_dimensions", str(LOCAL_SPACE[2])), (f"imported:{project}", "2026-01-01T00:00:00Z")]
    for key, value in meta:
        conn.execute("INSERT INTO _metadata (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE "
                     "SET value = excluded.value", (key, value))
    conn.execute("UPDATE _metadata SET value = (value::bigint + 1)::text WHERE key = 'vectors_version'")
    conn.execute("ALTER TABLE entries ENABLE TRIGGER vectors_ai")


def _hnsw(conn) -> dict:
    """The product's HNSW index, built with BUILD_SETTINGS; its build time."""
    from memory_adapters.store.postgres.schema import ensure_hnsw_index

    for key, value in BUILD_SETTINGS.items():
        conn.execute(f"SET {key} = {value}")
    t0 = time.perf_counter()
    with conn.transaction():
        ensure_hnsw_index(conn, LOCAL_SPACE[2])
    return {"hnsw_s": round(time.perf_counter() - t0, 1), "build_settings": dict(BUILD_SETTINGS)}


def _sizes(conn) -> dict:
    """Sizes in MB: the table with its TOAST and indexes, and the HNSW and full-text indexes alone."""
    def mb(sql: str) -> float:
        return round(conn.execute(sql).fetchone()[0] / 2**20, 1)

    return {"total_mb": mb("SELECT pg_total_relation_size('entries')"),
            "hnsw_mb": mb(f"SELECT pg_relation_size('idx_entries_embedding_hnsw_{LOCAL_SPACE[2]}')"),
            "gin_mb": mb("SELECT pg_relation_size('idx_entries_search')")}


def build_sqlite(store_dir: Path, size: int, pool, texts, own_scope: str, project: Path) -> dict:
    """The SQLite store of the same rows (scopes included), vector cache written; its build record."""
    started = time.perf_counter()
    scoped: list[tuple[str, str]] = []

    def rows():
        for chunk in generate(size, pool, texts, own_scope):
            for row in chunk:
                if row.scope is not None:
                    scoped.append((row.scope, row.id))
                yield sqlite_row(row)

    db = store_dir / "memory.db"
    write_store(db, rows(), LOCAL_SPACE, [project])
    conn = sqlite3.connect(str(db), isolation_level=None)
    conn.execute("BEGIN")
    conn.executemany("UPDATE entries SET scope = ? WHERE id = ?", scoped)
    conn.execute("COMMIT")
    count = conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
    conn.close()
    return {"entries": count, "build_s": round(time.perf_counter() - started, 1), "db_mb": size_mb(db)}
