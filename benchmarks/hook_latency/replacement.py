"""A killed warm process is replaced without a failed prompt: with the server up, one prompt is answered; the
server is SIGKILLed (its socket stays behind); then the same prompt, a new session each time, is asked again and
again until the replacement, which the first hook without a server spawned, has answered REPLACED_RUNS of them.

Which process answered is read from the hook's own imports (PYTHONPROFILEIMPORTTIME, as
tests/integration/test_hook_path_imports.py does): a hook that answers itself imports COLD_PATH_MODULE, one the
warm server answered never does. The baseline answer, which the warm server gives, checks that this still holds."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from benchmarks.hook_latency import events, warm
from benchmarks.hook_latency.hook_process import PROMPT, HookRun, hook_command, parse

COLD_PATH_MODULE = "memory_apps.wiring.resolver"
REPLACED_RUNS = 3
PROMPT_TEXT = events.ANCHORS[0][4][0]


def run_traced(store: Path, project: Path, env: dict) -> tuple[HookRun, bool]:
    """One prompt hook process (a new session) and whether the warm server answered it."""
    start = time.perf_counter()
    done = subprocess.run(hook_command(PROMPT, store), input=events.prompt_event(project, PROMPT_TEXT),
                          env={**env, "CLAUDE_PROJECT_DIR": str(project), "PYTHONPROFILEIMPORTTIME": "1"},
                          cwd=str(project), capture_output=True, text=True, timeout=120)
    ms = (time.perf_counter() - start) * 1000
    if done.returncode != 0:
        raise RuntimeError(f"prompt hook exited {done.returncode}: {done.stderr[-2000:]}")
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    other = "\n".join(line for line in done.stderr.splitlines() if not line.startswith("import time:"))
    return parse(ms, done.stdout, other), COLD_PATH_MODULE not in imported


def killed_and_replaced(store: Path, project: Path, env: dict, max_prompts: int) -> dict:
    """One kill, the warm server up at the start: how many prompts failed (empty), differed from the answer before
    the kill, and went by until the replacement answered."""
    before, by_warm = run_traced(store, project, env)
    if not by_warm:
        raise RuntimeError(f"the baseline prompt was not answered by the warm server (or {COLD_PATH_MODULE} is now "
                           "imported on the warm path too: update benchmarks/hook_latency/replacement.py)")
    if before.empty:
        raise RuntimeError(f"the baseline prompt got no answer: {PROMPT_TEXT!r}")
    victims = warm.server_pids(store)
    for pid in victims:
        warm.kill(pid)
    after: list[dict] = []
    answered_warm = 0
    while answered_warm < REPLACED_RUNS and len(after) < max_prompts:
        run, by_warm = run_traced(store, project, env)
        answered_warm += by_warm
        after.append({"ms": round(run.ms, 1), "warm": by_warm, "empty": run.empty, "same": run.ids == before.ids,
                      "keywords_only": run.keywords_only, **({"stderr": run.stderr} if run.stderr else {})})
    return {"killed": sorted(victims), "answer_before": before.ids, "runs": after,
            "first_warm_answer_at": next((i + 1 for i, a in enumerate(after) if a["warm"]), None),
            "replaced_by": sorted(warm.server_pids(store))}


def kills(store: Path, project: Path, env: dict, times: int, max_prompts: int) -> dict:
    """`times` kills in a row, each once the launcher may spawn again (it spawns at most once in RESPAWN_AFTER_S,
    and a real crash rarely follows a start that closely); the totals over all of them."""
    from memory_apps.warm.launcher import RESPAWN_AFTER_S, STAMP_NAME
    from memory_apps.warm.paths import warm_dir

    stamp = Path(warm_dir(str(store))) / STAMP_NAME
    cycles = []
    for _ in range(times):
        warm.wait_for(lambda: not stamp.exists() or time.time() - stamp.stat().st_mtime >= RESPAWN_AFTER_S,
                      "the launcher's respawn pause", seconds=RESPAWN_AFTER_S + 60)
        cycles.append(killed_and_replaced(store, project, env, max_prompts))
    runs = [r for c in cycles for r in c["runs"]]
    cold = [r["ms"] for r in runs if not r["warm"]]
    return {"prompt": PROMPT_TEXT, "kills": times, "prompts_after_kill": len(runs),
            "failed_empty": sum(r["empty"] for r in runs),
            "different_entries": sum(not r["empty"] and not r["same"] for r in runs),
            "keywords_only": sum(r["keywords_only"] for r in runs), "cold_answers": len(cold),
            "slowest_cold_ms": max(cold, default=None),
            "first_warm_answer_at": [c["first_warm_answer_at"] for c in cycles],
            "never_replaced": sum(not c["replaced_by"] for c in cycles), "cycles": cycles}
