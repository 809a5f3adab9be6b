"""Session starts at one size: whole `python -m memory_apps.injector` processes (the hook's command, the local
model really loading and embedding a context never seen before, or a context whose query vector the database
remembers), interleaved with their floors; and `MemoryService.inject` in a warm process."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Optional

from benchmarks.common.fixtures import context_query_text, new_context
from benchmarks.common.processes import base_env, diagnostic, injector, path_state, proc, run_proc, states
from benchmarks.common.stats import latency
from benchmarks.common.timer import time_ms

DATABASE_URL_ENV = "IFLOW_MEMORY_DATABASE_URL"
HOOK_TIMEOUT_S = 3.0  # the reference hook line: `timeout 3`
_contexts = iter(range(int(time.time()) % 100_000 * 1000, 10**12))  # never a context an earlier run embedded


def environment(home: Path, ceiling: Path, url: Optional[str]) -> dict:
    """The hook's environment: temp HOME, no background run, the database URL for PostgreSQL."""
    env = base_env(home, ceiling)
    env.pop(DATABASE_URL_ENV, None)
    if url:
        env[DATABASE_URL_ENV] = url
    return env


def hook_runs(project: Path, store: Path, models_store: Path, env: dict, runs: int, url: Optional[str],
              cwd: Path, models_env: Optional[dict] = None) -> dict:
    """`runs` interleaved rounds (after one warm-up) of: a cached context, a new context, a new context with
    the model's optimised copy, the model floor and (PostgreSQL) the server floor. Wall ms from spawn to exit.
    `models_env` is the environment whose cache directory holds the model's optimised copy (the `models_store`
    runs use it)."""
    query = context_query_text()
    with_url = lambda e: {**e, DATABASE_URL_ENV: url} if url else {k: v for k, v in e.items()  # noqa: E731
                                                                    if k != DATABASE_URL_ENV}
    env, models_env = with_url(env), with_url(models_env or env)
    kinds = {"cached": None, "new_context": store, "new_context_models": models_store,
             "model_floor": proc("model_floor", query)}
    if url:
        kinds["server_floor"] = proc("pg_floor", url)
    samples: dict[str, list[float]] = {k: [] for k in kinds}
    seen: dict[str, list[str]] = {k: [] for k in ("cached", "new_context", "new_context_models")}
    lines: dict[str, str] = {}
    for round_number in range(runs + 1):
        for kind, command in kinds.items():
            if kind == "cached":
                new_context(project, 0)
                command = injector(project, store)
            elif kind.startswith("new_context"):
                new_context(project, next(_contexts))
                command = injector(project, command)
            ms, done = run_proc(command, models_env if kind == "new_context_models" else env, cwd)
            if done.returncode != 0:
                raise RuntimeError(f"{kind} failed: {done.stderr[-2000:]}")
            if round_number == 0:
                continue  # warm-up: page cache, .pyc files, the cached context's query vector
            samples[kind].append(ms)
            if kind in seen:
                seen[kind].append(path_state(done.stdout))
                lines[kind] = diagnostic(done.stdout)
                if done.stderr.strip():
                    lines[kind + "_stderr"] = done.stderr.strip()[-500:]
    result = {kind: {**latency(values), "runs": len(values)} for kind, values in samples.items()}
    for kind in seen:
        within = sum(1 for ms, state in zip(samples[kind], seen[kind]) if ms <= HOOK_TIMEOUT_S * 1000
                     and state == "active")
        result[kind].update(paths=states(seen[kind]), diagnostic=lines.get(kind, ""),
                            active_within_3s=f"{within}/{len(seen[kind])}")
        if kind + "_stderr" in lines:
            result[kind]["stderr"] = lines[kind + "_stderr"]
    return result


def in_process(project: Path, store: Path, url: Optional[str], runs: int) -> dict:
    """`MemoryService.inject` in one warm process (the model kept): new contexts, then the cached one."""
    from memory_apps.service import MemoryService

    _set_url(url)
    try:
        service = MemoryService(global_store=str(store), project_root=str(project))
        new_context(project, next(_contexts))
        first_ms, block = time_ms(lambda: service.inject(limit=20))
        fresh, paths = [], []
        for _ in range(runs):
            new_context(project, next(_contexts))
            ms, block = time_ms(lambda: service.inject(limit=20))
            fresh.append(ms)
            paths.append(path_state(block))
        new_context(project, 0)
        service.inject(limit=20)
        cached = [time_ms(lambda: service.inject(limit=20))[0] for _ in range(runs)]
        return {"first_ms": round(first_ms, 1), "new_context": {**latency(fresh), "paths": states(paths)},
                "cached": latency(cached), "diagnostic": diagnostic(block)}
    finally:
        _set_url(None)


def _set_url(url: Optional[str]) -> None:
    if url:
        os.environ[DATABASE_URL_ENV] = url
    else:
        os.environ.pop(DATABASE_URL_ENV, None)
