"""Section 1b's process-level overheads: the same injector via `python -c`, as is, with the cyclic garbage
collector disabled before main(), with os._exit(0) right after main() (no interpreter teardown), and with both."""

from __future__ import annotations

from pathlib import Path

from benchmarks.common.processes import check, injector_args, path_state, run_proc, states
from benchmarks.common.stats import median, summary
from benchmarks.common.tables import table
from benchmarks.suite.constants import PY
from benchmarks.suite.report import Report

_NO_GC = "import gc; gc.disable(); "
_EXIT = "; sys.stdout.flush(); os._exit(0)"
PRELUDE = {"as is": "", "gc.disable()": _NO_GC, "os._exit": "", "both": _NO_GC}
ENDING = {"as is": "", "gc.disable()": "", "os._exit": _EXIT, "both": _EXIT}
CODES = {v: f"{PRELUDE[v]}import os, sys; from memory_apps.injector import main; main(sys.argv[1:]){ENDING[v]}"
         for v in PRELUDE}


def process_overheads(report: Report, env: dict, workdir: Path, size: int, largest: int) -> dict:
    """Every variant at `size` entries (5 rounds), 'as is' and 'both' at the largest size too (3 rounds)."""
    plans = [(size, list(CODES))]
    if largest != size and (workdir / f"s1-{largest}" / "store" / "memory.db").exists():
        plans.append((largest, ["as is", "both"]))
    ab: dict[str, dict] = {}
    rows = []
    for n_entries, variants in plans:
        where = workdir / f"s1-{n_entries}"
        rounds = 6 if n_entries == size else 4
        for name, project in (("keyword", where / "keyword-project"), ("vector_local", where / "vector-project")):
            samples, seen = _rounds(env, where, project, variants, rounds)
            ab[f"{n_entries}:{name}"] = {v: {**summary(x), "paths": states(seen[v])} for v, x in samples.items()}
            base_ms = median(samples["as is"])
            rows.append((f"{n_entries:,}", name, *[
                f"{median(samples[v]):.0f} ({median(samples[v]) - base_ms:+.0f})"
                + ("" if states(seen[v]) in ("active", "off") else f" [{states(seen[v])}]")
                if v in samples else "-" for v in CODES]))
    report.out("\nProcess-level overheads: the injector through `python -c`, as is; with `gc.disable()` before "
               "`main()`; with `os._exit(0)` right after `main()` (stdout flushed; skips module teardown and the "
               "final garbage collection); and with both. Median ms (difference to 'as is') of interleaved runs "
               f"after 1 warm-up (5 at {size:,} entries"
               + (f", 3 at {largest:,}" if len(plans) > 1 else "") + ").\n")
    report.out(table(["entries", "path", *CODES], rows, right=range(2, 2 + len(CODES))))
    return ab


def _rounds(env: dict, where: Path, project: Path, variants: list[str],
            rounds: int) -> tuple[dict[str, list[float]], dict[str, list[str]]]:
    """Interleaved rounds of the variants, the first one untimed: (ms per variant, paths per variant)."""
    samples: dict[str, list[float]] = {v: [] for v in variants}
    seen: dict[str, list[str]] = {}
    for round_number in range(rounds):
        for variant in variants:
            ms, done = run_proc([PY, "-c", CODES[variant], *injector_args(project, where / "store")], env, where)
            check(done, f"injector ({variant})")
            if round_number:
                samples[variant].append(ms)
                seen.setdefault(variant, []).append(path_state(done.stdout))
    return samples, seen
