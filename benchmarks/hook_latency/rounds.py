"""The timed rounds at one size: the floor, the prompt hook warm and cold, the file hook warm and cold, one of each
per round in turn, so that whatever else the machine does hits them all alike."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from benchmarks.common.stats import latency, ratio
from benchmarks.hook_latency import events
from benchmarks.hook_latency.hook_process import FILE, PROMPT, HookRun, run_floor, run_hook

KINDS = ("floor", "prompt_warm", "prompt_cold", "file_warm", "file_cold")
DEADLINE_MS = 1000.0  # the hooks' default deadline, from the start of their process (IFLOW_MEMORY_HOOK_DEADLINE_S)


def timed_rounds(store: Path, project: Path, size: int, calls: int, envs: dict, log: Callable[[str], None],
                 deadline_ms: float = DEADLINE_MS) -> dict:
    """`calls` counted rounds after one warm-up round; per kind its latency, and for the hooks how many answers
    were empty or keyword-only and how many took longer than `deadline_ms`."""
    prompts = events.prompts(2 * (calls + 1), seed=size)  # answerable and prose in turn; no prompt asked twice
    files = events.files(calls + 1, size)
    runs: dict[str, list] = {kind: [] for kind in KINDS}
    # Round 0 warms the OS cache and the model's optimised copy; not counted. The warm and the cold hook take the
    # answerable and the prose prompt in turn, so each gets the same mix.
    for n in range(calls + 1):
        measured = {
            "floor": run_floor(store / "memory.db", envs["cold"], project),
            "prompt_warm": run_hook(PROMPT, store, project, events.prompt_event(project, prompts[2 * n + n % 2]),
                                    envs["warm"]),
            "prompt_cold": run_hook(PROMPT, store, project, events.prompt_event(project, prompts[2 * n + 1 - n % 2]),
                                    envs["cold"]),
            "file_warm": run_hook(FILE, store, project, events.file_event(project, files[n]), envs["warm"]),
            "file_cold": run_hook(FILE, store, project, events.file_event(project, files[n]), envs["cold"]),
        }
        if n:
            for kind, value in measured.items():
                runs[kind].append(value)
        if n % 10 == 0:
            log(f"{size:,} entries: round {n} of {calls}")
    return summarise(runs, deadline_ms)


def summarise(runs: dict[str, list], deadline_ms: float = DEADLINE_MS) -> dict:
    """Latency per kind; answers per hook kind; the warm prompt hook's median against the floor's."""
    result: dict = {"floor": latency(runs["floor"])}
    for kind in KINDS[1:]:
        hooks: list[HookRun] = runs[kind]
        times = [h.ms for h in hooks]
        result[kind] = {**latency(times), "calls": len(hooks), "empty": sum(h.empty for h in hooks),
                        "keywords_only": sum(h.keywords_only for h in hooks),
                        "over_deadline": sum(t > deadline_ms for t in times),
                        "p95_under_deadline": latency(times)["p95_ms"] < deadline_ms,
                        "example_diagnostic": next((h.diagnostic for h in hooks if h.diagnostic), "")}
        stderr = [h.stderr for h in hooks if h.stderr]
        if stderr:
            result[kind]["stderr"] = {"runs": len(stderr), "last": stderr[-1]}
    floor = result["floor"]["median_ms"]
    result["ratios_to_floor"] = {kind: ratio(result[kind]["median_ms"], floor) for kind in KINDS[1:]}
    return result
