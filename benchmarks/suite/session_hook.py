"""Section 7's hook at 10,000 entries: an unchanged context (cached query vector) against the floor, and a new
context (the model loads beside the database work), with and without the model's optimised copy, against the
floor + model floor."""

from __future__ import annotations

import inspect
from pathlib import Path

from benchmarks.common.fixtures import new_context
from benchmarks.common.processes import injector, path_state, peak_rss_mb, proc, run_proc, states
from benchmarks.common.stats import median, ratio, summary, verdict
from benchmarks.common.tables import table
from benchmarks.suite.report import Report

DEADLINE_S = 2.0
TARGET_CACHED = 1.3
TARGET_NEW_CONTEXT = 0.85
NEW_CONTEXTS = ("new_context", "new_context_models")


def hook_10k(report: Report, env: dict, base: Path, store: Path, project: Path, repeat: int, query: str,
             with_models: tuple[Path, dict]) -> dict:
    """Interleaved rounds of the floors, the cached context and both new-context runs; printed and returned.
    `with_models`: the store after its first background run and the environment whose cache holds the model's
    optimised copy; the other runs see an empty cache directory."""
    commands = {"floor": proc("floor", str(store / "memory.db")), "model_floor": proc("model_floor", query),
                "cached": injector(project, store)}
    from memory_adapters.embedders.local_embedder import LocalOnnxEmbedder

    if "cache_dir" in inspect.signature(LocalOnnxEmbedder).parameters:
        commands["model_floor_optimised"] = proc("model_floor", query, str(base / "model-cache"))
    stores = {"new_context": store, "new_context_models": with_models[0]}
    envs = {"new_context": {**env, "XDG_CACHE_HOME": str(base / "cache-without-models")},
            "new_context_models": with_models[1]}
    samples: dict[str, list[float]] = {k: [] for k in [*commands, *NEW_CONTEXTS]}
    seen: dict[str, list[str]] = {"cached": [], "new_context": [], "new_context_models": []}
    counter = 0
    for round_number in range(repeat + 1):
        for name, command in [*commands.items(), *((n, None) for n in NEW_CONTEXTS)]:
            if command is None:
                counter += 1
                new_context(project, counter)
                command = injector(project, stores[name])
            ms, done = run_proc(command, envs.get(name, env), base)
            if done.returncode != 0:
                raise RuntimeError(f"{name} failed: {done.stderr[-2000:]}")
            if round_number:
                samples[name].append(ms)
                if name in seen:
                    seen[name].append(path_state(done.stdout))
        new_context(project, 0)  # the cached runs always see this context (embedded once, in the warm-up)
        if round_number == 0:
            run_proc(injector(project, store), env, base)
    rss = {k: peak_rss_mb(c, env, base) for k, c in commands.items()}
    for n, name in enumerate(NEW_CONTEXTS):
        new_context(project, 9000 + n)
        rss[name] = peak_rss_mb(injector(project, stores[name]), envs[name], base)
    new_context(project, 0)
    entry = {k: summary(v) for k, v in samples.items()}
    entry["paths"] = {k: states(v) for k, v in seen.items()}
    entry["peak_rss_mb"] = rss
    _print(report, entry, {k: median(v) for k, v in samples.items()})
    return entry


def _print(report: Report, entry: dict, med: dict) -> None:
    both = med["floor"] + med["model_floor"]
    entry["ratios"] = {"cached/floor": ratio(med["cached"], med["floor"]),
                       "new_context/(floor+model_floor)": ratio(med["new_context"], both),
                       "new_context_models/(floor+model_floor)": ratio(med["new_context_models"], both)}
    report.out("### Hook at 10,000 entries\n")
    rows = [("floor", f"{med['floor']:.0f}", "", ""), ("model floor (plain load)", f"{med['model_floor']:.0f}", "", "")]
    if "model_floor_optimised" in med:
        rows.append(("model floor (optimised model cached)", f"{med['model_floor_optimised']:.0f}",
                     "", ""))
        entry["ratios"]["model_floor_optimised/model_floor"] = ratio(med["model_floor_optimised"], med["model_floor"])

    def row(label: str, name: str, ratio_key: str, against: str, target: float) -> tuple:
        value = entry["ratios"][ratio_key]
        return (label, f"{med[name]:.0f} ({entry['paths'][name]})", f"{value} of {against}",
                f"<= {target} " + verdict(value, target))

    rows += [row("(a) unchanged context: cached query vector", "cached", "cached/floor", "floor", TARGET_CACHED),
             row("(b) new context: model (plain load) beside the database work, before any background run",
                 "new_context", "new_context/(floor+model_floor)", "floor + model floor", TARGET_NEW_CONTEXT),
             row("(b) new context, optimised model cached (after the first background run)", "new_context_models",
                 "new_context_models/(floor+model_floor)", "floor + model floor", TARGET_NEW_CONTEXT)]
    report.out(table(["process", "median ms (path)", "ratio", "target"], rows, right=(1,)))
    report.out("\nPeak resident memory, MB: " + ", ".join(f"{k} {v}" for k, v in entry["peak_rss_mb"].items()
                                                          if v is not None))
