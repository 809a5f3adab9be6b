"""The server the benchmark runs against: a pgserver (bundled PostgreSQL 16 + pgvector) whose data directory is
kept between runs, so the 1M database is built once; or any server given by URL."""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Optional
from urllib.parse import urlsplit, urlunsplit

DEFAULT_DATA_DIR = Path("~/.cache/iflow-memory-bench/pgdata").expanduser()
# A team server on this machine class (24 GiB, 2 cores): buffers sized for the 1M database, the WAL not
# forcing checkpoints during a bulk load. Durable as installed (fsync on): writers pay a real commit.
SERVER_SETTINGS = {"shared_buffers": "'4GB'", "effective_cache_size": "'12GB'", "max_wal_size": "'16GB'",
                   "checkpoint_timeout": "'30min'", "max_connections": "200", "work_mem": "'32MB'"}
# The HNSW build: the whole 1M graph fits in memory; pgvector 0.6 builds in parallel (leader + 1 worker = 2 cores).
BUILD_SETTINGS = {"maintenance_work_mem": "'8GB'", "max_parallel_maintenance_workers": "1"}


class Server:
    """A PostgreSQL server: `url(database)` names one of its databases; `admin(sql)` runs in `postgres`."""

    def __init__(self, url: Optional[str] = None, data_dir: Path = DEFAULT_DATA_DIR) -> None:
        self._server = None
        self._base = url
        self.data_dir = None if url else Path(data_dir)
        if url is None:
            self._start()

    def _start(self) -> None:
        with warnings.catch_warnings():  # platformdirs: "XDG_RUNTIME_DIR is not set"
            warnings.simplefilter("ignore")
            import pgserver
        self.data_dir.parent.mkdir(parents=True, exist_ok=True)
        _forget_dead_handles(self.data_dir)
        self._server = pgserver.get_server(self.data_dir, cleanup_mode="stop")
        self._base = self._server.get_uri()
        self.admin(*[f"ALTER SYSTEM SET {k} = {v}" for k, v in SERVER_SETTINGS.items()], "SELECT pg_reload_conf()")
        if self.admin_rows("SELECT name FROM pg_settings WHERE pending_restart"):
            self._restart()

    def _restart(self) -> None:
        """Stop and start again (shared_buffers needs a restart; only when this process holds the only handle)."""
        from pgserver._commands import pg_ctl

        pg_ctl(["-w", "restart"], pgdata=self.data_dir, user=self._server.system_user, timeout=120)
        self._base = self._server.get_uri()

    def url(self, database: str) -> str:
        """The URL of `database` on this server."""
        parts = urlsplit(self._base)
        return urlunsplit((parts.scheme, parts.netloc, "/" + database, parts.query, parts.fragment))

    def admin(self, *statements: str) -> None:
        """Run statements in the `postgres` database (autocommit)."""
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            for statement in statements:
                conn.execute(statement)

    def admin_rows(self, sql: str, params: tuple = ()) -> list[tuple]:
        """The rows of one query in the `postgres` database."""
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            return conn.execute(sql, params).fetchall()

    def exists(self, database: str) -> bool:
        """Whether the database exists."""
        return bool(self.admin_rows("SELECT 1 FROM pg_database WHERE datname = %s", (database,)))

    def recreate(self, database: str) -> str:
        """Drop (closing its connections) and create `database`; its URL."""
        self.admin(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)", f"CREATE DATABASE {database}")
        return self.url(database)

    def drop(self, database: str) -> None:
        """Drop `database` if it exists."""
        self.admin(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")

    def settings(self) -> dict:
        """The settings that matter here, as the server reports them."""
        names = [*SERVER_SETTINGS, *BUILD_SETTINGS, "fsync", "synchronous_commit", "server_version"]
        rows = self.admin_rows("SELECT name, setting, unit FROM pg_settings WHERE name = ANY(%s)", (names,))
        settings = {n: f"{s}{' ' + u if u else ''}" for n, s, u in rows}
        settings["pgvector"] = (self.admin_rows("SELECT default_version FROM pg_available_extensions "
                                                "WHERE name = 'vector'") or [[None]])[0][0]
        return settings

    def close(self) -> None:
        """Release this process's handle (pgserver stops the server when the last handle goes)."""
        if self._server is not None:
            self._server.cleanup()
            self._server = None


def _forget_dead_handles(data_dir: Path) -> None:
    """Drop the pids of killed runs from pgserver's list of handles, or the server would never stop again."""
    handles = data_dir / ".handle_pids.json"
    try:
        pids = json.loads(handles.read_text())
    except (OSError, ValueError):
        return
    alive = [pid for pid in pids if Path(f"/proc/{pid}").exists()]
    if alive != pids:
        handles.write_text(json.dumps(alive))


def masked(url: str) -> str:
    """The URL without its password (for the report)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return urlunsplit((parts.scheme, parts.netloc.replace(":" + parts.password + "@", ":***@"), parts.path,
                       parts.query, parts.fragment))


def cpu_count() -> int:
    """Cores this process may use."""
    return len(os.sched_getaffinity(0))
