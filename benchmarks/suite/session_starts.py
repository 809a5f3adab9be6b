"""Section 7: session starts under one deadline (issue 10).

Whole `python -m memory_apps.injector` processes, timed from spawn to exit, interleaved with the floors they
are compared with (measured in the same rounds):
- (a) an unchanged context (the query vector is cached: no model) against the floor;
- (b) a new context every run (the model loads while the database work runs) against floor + model floor;
- the model floor itself, plain and with the optimised model cached (in the user's cache directory) (when the local embedder
  offers it);
- 3 and 5 session starts at once, at 1k and 10k entries (each one's wall time);
- the first session of a new project against a 10k store, and of a project whose bank has 3,000 entries (with
  how long the background run takes to finish that import).
"""

from __future__ import annotations

import shutil
import subprocess
import textwrap
from pathlib import Path

from benchmarks.common.fixtures import build_database, context_query_text, make_project
from benchmarks.common.processes import base_env, log
from benchmarks.common.store import LOCAL_SPACE
from benchmarks.suite.constants import PY
from benchmarks.suite.report import Report
from benchmarks.suite.session_concurrent import concurrent
from benchmarks.suite.session_first import first_sessions
from benchmarks.suite.session_hook import DEADLINE_S, hook_10k

INTRO = """\
    Whole `python -m memory_apps.injector` processes (temp HOME, no git, background runs off unless said),
    timed from spawn to exit; medians of {repeat} interleaved rounds after one warm-up. The session decides by
    {deadline:.1f} s after its process started, whatever is still running. Databases: synthetic entries
    with random 384-dim vectors pinned to the bundled model's space, vector cache file prebuilt (as the
    write paths and the background run keep it).
    """


def section_session_starts(report: Report, workdir: Path, repeat: int, smoke: bool = False) -> dict:
    """Run section 7 and return its numbers (also saved in results/suite.json under '7_session_starts'); `smoke`: on a
    1,000-entry store only (labelled 10,000 below) and a 300-entry first bank, to check that it runs."""
    report.out("\n## 7. Session starts under one deadline\n")
    if smoke:
        report.out("**Smoke run**: 1,000 entries where the text says 10,000, a 300-entry bank where it says 3,000.\n")
    report.out(textwrap.dedent(INTRO.format(repeat=repeat, deadline=DEADLINE_S)))
    home = workdir / "home"
    home.mkdir(exist_ok=True)
    env = base_env(home, workdir)
    results: dict = {"repeat": repeat, "deadline_s": DEADLINE_S}
    query = context_query_text()
    base = workdir / "s7"
    stores = {}
    projects = {}
    for size in (1000,) if smoke else (1000, 10000):
        projects[size] = make_project(base / f"project-{size}", {"embedding_provider": "local"})
        stores[size] = base / f"store-{size}"
        log(f"section 7: building {size:,} x 384 database")
        build_database(stores[size] / "memory.db", size, LOCAL_SPACE, [projects[size]])
    big = max(stores)
    with_models = _with_model_cache(env, base, stores[big], projects[big])
    results["hook_10k"] = hook_10k(report, env, base, stores[big], projects[big], repeat, query, with_models)
    results["concurrent"] = concurrent(report, env, base, stores, projects, max(2, repeat // 2 + 1))
    results["first_sessions"] = first_sessions(report, env, base, stores[big], max(1, repeat // 2),
                                               bank_size=300 if smoke else 3000)
    report.save("7_session_starts", results)
    shutil.rmtree(base, ignore_errors=True)
    return results


def _with_model_cache(env: dict, base: Path, store: Path, project: Path) -> tuple[Path, dict]:
    """A copy of the store after its first background run, and the environment whose cache directory holds the
    local model's optimised copy that run built (one copy per user, under XDG_CACHE_HOME)."""
    copy = base / (store.name + "-models")
    shutil.copytree(store, copy)
    models_env = {**env, "XDG_CACHE_HOME": str(base / "cache-with-models")}
    done = subprocess.run([PY, "-m", "memory_apps.cli", "maintain", "--project-root", str(project),
                           "--global-store", str(copy)], env=models_env, cwd=str(base), capture_output=True, text=True)
    if done.returncode != 0 or not (base / "cache-with-models" / "iflow-memory" / "models").is_dir():
        raise RuntimeError(f"maintain did not build the model cache: {done.stderr[-2000:]}")
    return copy, models_env
