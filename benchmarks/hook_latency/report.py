"""The markdown report of `python -m benchmarks hooks-latency`."""

from __future__ import annotations

from benchmarks.common.tables import table
from benchmarks.hook_latency.imports import HEAVY
from benchmarks.hook_latency.rounds import KINDS

LABELS = {"floor": "floor (python + numpy + SQLite + one matrix product)", "prompt_warm": "prompt hook, warm",
          "prompt_cold": "prompt hook, cold (IFLOW_MEMORY_WARM=off)", "file_warm": "file hook, warm",
          "file_cold": "file hook, cold (IFLOW_MEMORY_WARM=off)"}
TARGET_RATIO = 1.5


def render(results: dict) -> str:
    """The latency table, the verdict at the largest size, the crash scenario, the import probe, the machine."""
    sizes = list(results["sizes"])
    deadline = results["deadline_ms"]
    rows = []
    for size in sizes:
        r = results["sizes"][size]
        for kind in KINDS:
            m = r[kind]
            hook = kind != "floor"
            rows.append((f"{int(size):,}", LABELS[kind], m["median_ms"], m["p95_ms"], m["min_ms"], m["max_ms"],
                         r["ratios_to_floor"][kind] if hook else 1.0, f"{m['over_deadline']}/{m['calls']}" if hook
                         else "-", m["empty"] if hook else "-", m["keywords_only"] if kind.startswith("prompt")
                         else "-"))
    lines = [f"## Hook latency: whole processes, ms ({results['calls']} interleaved rounds per size)", "",
             table(["entries", "what", "median", "p95", "min", "max", "median / floor", f"> {deadline:.0f} ms",
                    "empty", "keywords only"], rows, right=range(2, 10)), ""]
    lines += _verdict(results)
    lines += _replacement(results)
    lines += _imports(results.get("imports"))
    machine = results["machine"]
    lines += ["", "Each hook is a fresh `python -m memory_apps.cli hook EVENT` process in the project (event JSON on "
                  "stdin, a new session id every call, no prompt asked twice: half ask about a learning the store "
                  "holds, half are prose drawn from the words the synthetic entries are made of; files alternate "
                  "between cited, same name elsewhere, and uncited). Warm: the store's warm process up (started and "
                  "answering before the rounds). Cold: IFLOW_MEMORY_WARM=off. "
                  f"Deadline {results['deadline_ms']:.0f} ms (the product's is 1000): a cold prompt hook that cannot "
                  "load the model in time answers by keywords only. Empty: the hook printed nothing (nothing passed "
                  "the floor, nothing cites the file, or nothing came in time; an empty answer has no diagnostic "
                  "line, so a cold prompt hook's empty answers do not say which path they took). "
                  f"{machine['cores']} cores; load average {machine['loadavg_before']} before, "
                  f"{machine['loadavg_after']} after; processes other than this run's (its hooks and floors, not "
                  f"the warm servers the hooks spawned) kept {machine['others_cores']} cores busy on average (0 on an "
                  "idle machine)."]
    return "\n".join(lines)


def _verdict(results: dict) -> list[str]:
    largest = max(results["sizes"], key=int)
    deadline = results["deadline_ms"]
    r = results["sizes"][largest]
    ratio = r["ratios_to_floor"]["prompt_warm"]
    p95 = r["prompt_warm"]["p95_ms"]
    return [f"**At {int(largest):,} entries:** warm prompt hook median / floor median = {ratio} "
            f"({'meets' if ratio <= TARGET_RATIO else 'MISSES'} <= {TARGET_RATIO}); warm prompt hook p95 {p95} ms "
            f"({'under' if p95 < deadline else 'NOT under'} the {deadline:.0f} ms deadline); cold prompt hook "
            f"p95 {r['prompt_cold']['p95_ms']} ms, {r['prompt_cold']['keywords_only']} of "
            f"{r['prompt_cold']['calls']} answered by keywords only.", ""]


def _replacement(results: dict) -> list[str]:
    rows = [(f"{int(size):,}", s["kills"], s["prompts_after_kill"], s["failed_empty"], s["different_entries"],
             s["keywords_only"], s["slowest_cold_ms"], " ".join(str(n or "never") for n in s["first_warm_answer_at"]),
             " / ".join(" ".join(f"{a['ms']:.0f}{'w' if a['warm'] else 'c'}" for a in c["runs"]) for c in s["cycles"]))
            for size, r in results["sizes"].items() if (s := r.get("replacement"))]
    if not rows:
        return []
    watchdog = results["deadline_ms"]
    return ["## Killed warm processes (SIGKILL), then the same prompt again and again, a new session each", "",
            table(["entries", "kills", "prompts", "failed (empty)", "other entries", "keywords only",
                   "slowest cold ms", "first answered warm at prompt", "ms per prompt (w warm, c cold), per kill"],
                  rows, right=range(1, 7)),
            "", "The first hook that finds no server answers cold and spawns the replacement; the next ones answer "
                "cold until it answers (it listens within a fraction of a second but loads the model for seconds; a "
                "hook asking it meanwhile gives it 60% of its time, then answers cold with the rest). 'other entries': "
                "answered, but not with the entries the warm server gave before the kill. A hook process still running "
                f"{watchdog:.0f} ms after its start is ended by its watchdog and prints nothing (a failed prompt). "
                "These hooks run with PYTHONPROFILEIMPORTTIME (which process answered is read from their imports): "
                "a few ms more each.", ""]


def _imports(probe: dict | None) -> list[str]:
    if not probe:
        return []
    lines = ["## What a warm-answered prompt hook imports (`python -X importtime`)", "",
             f"{probe['modules']} modules, {probe['import_ms_median']} ms of imports (median of {probe['runs']} "
             f"runs; `python -c pass` alone {probe['python_alone_import_ms']} ms). Top-level imports of the last run: "
             + ", ".join(f"{name} {ms}" for name, ms in probe["top_level"]) + " (ms, cumulative).", ""]
    libraries = [name for name in HEAVY if not name.startswith("memory_")]
    found = [name for name in libraries if name in probe["heavy"]]
    lines += [f"Libraries imported before the socket is asked: {', '.join(found) if found else 'none'} "
              f"(of {', '.join(libraries)}).", ""]
    if probe["heavy"]:
        lines.append(table(["module the warm path does not need", "cumulative ms", "pulled in by (innermost first)"],
                           [(name, h["cumulative_ms"], " <- ".join(h["pulled_in_by"]) or "a function, at run time")
                            for name, h in probe["heavy"].items()], right=(1,)))
    return lines
