"""Where a session start's time goes on the server: every statement one in-process session start sends
(recorded with its wall time, through a patched connection), then EXPLAIN (ANALYZE, BUFFERS) of each on a
connection of our own (no statement timeout), with the plan's top node and execution time."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from benchmarks.common.fixtures import new_context

SESSION_DEADLINE_ENV = "IFLOW_MEMORY_SESSION_DEADLINE_S"


class _Recording:
    """A psycopg connection that notes each statement, its parameters, its wall ms and its row count."""

    def __init__(self, conn: Any, log: list) -> None:
        self._conn, self._log = conn, log

    def execute(self, sql: str, params: Any = ()):
        t0 = time.perf_counter()
        cursor = self._conn.execute(sql, params)
        self._log.append({"sql": " ".join(str(sql).split()), "params": params,
                          "ms": round((time.perf_counter() - t0) * 1000, 1), "rows": cursor.rowcount})
        return cursor

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def record_session(project: Path, store: Path, url: str, context: int) -> tuple[list[dict], str]:
    """The statements of one session start (hook wiring, in process, a new context) and its diagnostic line.
    A 60 s deadline and no statement timeout (the hook's is 1.5 s), so every statement runs to its end."""
    from benchmarks.common.processes import diagnostic
    from memory_adapters.store.postgres.connection import PostgresConnection
    from memory_apps.wiring import resolver, values
    from memory_apps.session.shell import answer_session, session_deadline

    statements: list[dict] = []
    original = PostgresConnection._live
    PostgresConnection._live = lambda self: _Recording(original(self), statements)
    timeout = values.HOOK_STATEMENT_TIMEOUT_MS
    values.HOOK_STATEMENT_TIMEOUT_MS = resolver.HOOK_STATEMENT_TIMEOUT_MS = 0  # the hook's own and its clamp
    os.environ["IFLOW_MEMORY_DATABASE_URL"] = url
    os.environ[SESSION_DEADLINE_ENV] = "60"
    blocks: list[str] = []
    try:
        new_context(project, context)
        answer_session(str(project), str(store), 20, session_deadline(process_start=False), blocks.append)
    finally:
        PostgresConnection._live = original
        values.HOOK_STATEMENT_TIMEOUT_MS = resolver.HOOK_STATEMENT_TIMEOUT_MS = timeout
        os.environ.pop("IFLOW_MEMORY_DATABASE_URL", None)
        os.environ.pop(SESSION_DEADLINE_ENV, None)
    return statements, diagnostic(blocks[0] if blocks else "")


def explain(url: str, sql: str, params: Any = (), setup: tuple[str, ...] = ()) -> dict:
    """EXPLAIN (ANALYZE, BUFFERS) of one statement: execution ms, planning ms, the top node, the plan text."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        for statement in setup:
            conn.execute(statement)
        conn.execute(sql, params)  # warm: the numbers below are a repeated session's
        rows = conn.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, params).fetchall()
    plan = [r[0] for r in rows]
    timing = {line.split(":")[0].strip(): float(line.split(":")[1].split()[0]) for line in plan
              if line.startswith(("Planning Time", "Execution Time"))}
    return {"execution_ms": timing.get("Execution Time"), "planning_ms": timing.get("Planning Time"),
            "top": plan[0].strip(), "plan": plan}


def session_queries(project: Path, store: Path, url: str, context: int) -> dict:
    """The recorded session's statements, each with its EXPLAIN ANALYZE (SET statements replayed before it)."""
    statements, line = record_session(project, store, url, context)
    setups: list[str] = []
    explained = []
    for s in statements:
        sql = s["sql"]
        if sql.upper().startswith("SET"):
            setups.append(sql)
            continue
        if not sql.upper().startswith("SELECT") and not sql.upper().startswith("(SELECT"):
            explained.append({**_short(s), "explain": None})  # writes after the block: not EXPLAINed
            continue
        explained.append({**_short(s), "explain": explain(url, sql, s["params"], tuple(setups))})
        setups = []
    return {"diagnostic": line, "statements": explained}


def _short(statement: dict) -> dict:
    """The statement for the report: SQL cut at 400 characters, parameters summarised (vectors are long)."""
    params = [f"<{len(p)} chars>" if isinstance(p, str) and len(p) > 120 else
              (f"<list of {len(p)}>" if isinstance(p, list) and len(p) > 5 else p)
              for p in (statement["params"] or ())]
    return {"sql": statement["sql"][:400] + ("…" if len(statement["sql"]) > 400 else ""), "params": params,
            "ms": statement["ms"], "rows": statement["rows"]}
