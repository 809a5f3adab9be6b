"""One hook as Claude Code runs it: a fresh `python -m memory_apps.cli hook EVENT` process in the project, the
event on stdin, hook JSON or nothing on stdout; what its answer says (entries, the path it took)."""

from __future__ import annotations

import json
import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from benchmarks.common.processes import PY, base_env, check, proc, run_proc

PROMPT, FILE = "user-prompt-submit", "pre-tool-use"
DEADLINE_ENV = "IFLOW_MEMORY_HOOK_DEADLINE_S"
_ID_LINE = re.compile(r"^- id: (\S+)", re.MULTILINE)


@dataclass
class HookRun:
    """One hook process: wall time from spawn to exit, and its answer."""

    ms: float
    ids: list[str] = field(default_factory=list)
    diagnostic: str = ""
    stderr: str = ""

    @property
    def empty(self) -> bool:
        """The hook printed nothing (nothing passed, or the answer came too late)."""
        return not self.ids

    @property
    def keywords_only(self) -> bool:
        """The prompt was answered without the model (its diagnostic says `keywords only`)."""
        return "keywords only" in self.diagnostic


def hook_env(home: Path, ceiling: Path, warm: bool, deadline_s: Optional[float] = None) -> dict:
    """The hooks' environment: the benchmarks' (temp HOME, no keys, this checkout's src), the product's own
    deadline unless `deadline_s` (a caller's IFLOW_MEMORY_HOOK_DEADLINE_S removed), the warm process on or off,
    and detached spawns allowed with it on (a hook that finds no server starts one, as for a user)."""
    env = base_env(home, ceiling)
    env.pop(DEADLINE_ENV, None)
    if deadline_s is not None:
        env[DEADLINE_ENV] = str(deadline_s)
    env["XDG_CACHE_HOME"] = str(home / ".cache")  # the model's optimised copy: built once per run, in the temp HOME
    env["IFLOW_MEMORY_WARM"] = "on" if warm else "off"
    env["IFLOW_MEMORY_BACKGROUND"] = "1" if warm else "0"
    return env


def hook_command(event: str, store: Path) -> list[str]:
    """`python -m memory_apps.cli hook EVENT --global-store STORE` (the console script imports the same `main`)."""
    return [PY, "-m", "memory_apps.cli", "hook", event, "--global-store", str(store)]


def run_hook(event: str, store: Path, project: Path, payload: str, env: dict) -> HookRun:
    """Run one hook process in `project` with `payload` on stdin; RuntimeError when it breaks the hook contract
    (a non-zero exit, or stdout that is not one hook JSON object)."""
    start = time.perf_counter()
    done = subprocess.run(hook_command(event, store), input=payload, env={**env, "CLAUDE_PROJECT_DIR": str(project)},
                          cwd=str(project), capture_output=True, text=True, timeout=120)
    ms = (time.perf_counter() - start) * 1000
    if done.returncode != 0:
        raise RuntimeError(f"hook {event} exited {done.returncode}: {done.stderr[-2000:]}")
    return parse(ms, done.stdout, done.stderr)


def parse(ms: float, stdout: str, stderr: str = "") -> HookRun:
    """A HookRun from what the hook printed."""
    if not stdout.strip():
        return HookRun(ms, stderr=stderr.strip()[-300:])
    try:
        context = json.loads(stdout)["hookSpecificOutput"]["additionalContext"]
    except (ValueError, KeyError, TypeError) as exc:
        raise RuntimeError(f"not hook JSON: {stdout[:500]!r}") from exc
    diagnostic = next((line for line in context.splitlines() if line.startswith("*Memory:")), "")
    return HookRun(ms, _ID_LINE.findall(context), diagnostic, stderr.strip()[-300:])


def run_floor(db: Path, env: dict, cwd: Path) -> float:
    """One run of benchmarks/procs/floor.py (python + numpy + SQLite + one matrix product), ms."""
    ms, done = run_proc(proc("floor", str(db)), env, cwd)
    check(done, "floor")
    return ms

