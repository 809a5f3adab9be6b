"""Running the product as a user's machine would: subprocesses in a temporary HOME, timed, and what the injector's
output says about the path it took."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

from benchmarks.common.paths import ROOT, SRC

PY = sys.executable
PROCS = ROOT / "benchmarks" / "procs"  # the scripts run as subprocesses
LIMIT = 20  # the session-start hook's --limit
SECRET_VARIABLES = ("GEMINI_API_KEY", "VOYAGE_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OLLAMA_HOST")


def log(message: str) -> None:
    """Progress on stderr, so stdout stays the report."""
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def base_env(home: Path, ceiling: Path) -> dict:
    """The subprocess environment: temp HOME, no keys, no background embedder, git stops at `ceiling`."""
    env = {k: v for k, v in os.environ.items() if k not in SECRET_VARIABLES}
    env.update(HOME=str(home), IFLOW_MEMORY_BACKGROUND="0", GIT_CEILING_DIRECTORIES=str(ceiling),
               PYTHONPATH=os.pathsep.join([str(SRC)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # the hook runs with its .pyc caches; so do the measurements
    return env


def proc(name: str, *args: str) -> list[str]:
    """The command that runs benchmarks/procs/<name>.py with `args`."""
    return [PY, str(PROCS / f"{name}.py"), *args]


def injector_args(project: Path, store: Path) -> list[str]:
    """The injector's arguments for `project` against the global store `store`."""
    return ["--project-root", str(project), "--limit", str(LIMIT), "--global-store", str(store)]


def injector(project: Path, store: Path) -> list[str]:
    """`python -m memory_apps.injector` for `project` against `store`, as the session-start hook runs it."""
    return [PY, "-m", "memory_apps.injector", *injector_args(project, store)]


def run_proc(command: Sequence[str], env: dict, cwd: Path, timeout: float = 600,
             stdin: Optional[str] = None) -> tuple[float, subprocess.CompletedProcess]:
    """Run `command` to the end (`stdin` written to it when given); (wall ms from spawn to exit, the completed
    process)."""
    start = time.perf_counter()
    done = subprocess.run(list(command), env=env, cwd=str(cwd), capture_output=True, text=True, timeout=timeout,
                          input=stdin)
    return (time.perf_counter() - start) * 1000, done


def check(done: subprocess.CompletedProcess, what: str) -> subprocess.CompletedProcess:
    """`done`, or RuntimeError with its stderr when it failed."""
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed ({done.returncode}): {done.stderr[-2000:]}")
    return done


def peak_rss_mb(command: Sequence[str], env: dict, cwd: Path) -> Optional[float]:
    """Peak resident memory of one run of `command`, MB, from GNU time's %M; None without /usr/bin/time.
    (A child's own rusage would also count the benchmark process it was forked from.)"""
    if not os.path.exists("/usr/bin/time"):
        return None
    done = subprocess.run(["/usr/bin/time", "-f", "%M", *command], env=env, cwd=str(cwd), capture_output=True,
                          text=True, timeout=600)
    try:
        return round(int(done.stderr.strip().splitlines()[-1]) / 1024, 1)  # KiB
    except (IndexError, ValueError):
        return None


def diagnostic(block: str) -> str:
    """The injector's `*Memory: ...` line, else the block's first line."""
    for line in block.splitlines():
        if line.startswith("*Memory:"):
            return line
    return block.strip().splitlines()[0] if block.strip() else "(empty output)"


def path_state(block: str) -> str:
    """Which step answered: active (meaning + keywords + prominence), degraded (the vector step did not finish
    by the deadline: keywords + prominence), off (no vectors to compare), fallback (markdown pipeline), legacy,
    empty."""
    line = diagnostic(block)
    for state in ("semantic: active", "semantic: degraded", "semantic: off", "semantic: fallback"):
        if state in line:
            return state.split(": ")[1]
    return "legacy" if block.startswith("## Engineering Memory") else "empty"


def states(seen: Sequence[str]) -> str:
    """'active', or e.g. 'active 3x, degraded 2x' when the runs did not all take the same path."""
    counts = {state: seen.count(state) for state in dict.fromkeys(seen)}
    if len(counts) == 1:
        return next(iter(counts))
    return ", ".join(f"{state} {n}x" for state, n in counts.items())
