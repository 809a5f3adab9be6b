"""Section 4: the markdown-only (legacy) pipeline, 500 synthetic entries, no database."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from benchmarks.common.bank import BankEntry, write_bank
from benchmarks.common.fixtures import make_project, synthetic_rows
from benchmarks.common.processes import base_env, check, injector, run_proc
from benchmarks.common.stats import median, ratio, summary
from benchmarks.common.tables import table
from benchmarks.common.timer import repeat_ms
from benchmarks.suite.constants import LIMIT, PY
from benchmarks.suite.report import Report


def section_legacy(report: Report, workdir: Path, repeat: int, floor: Optional[dict]) -> dict:
    """Run section 4; `floor` is section 1's results, for the reference row. Saved under '4_legacy'."""
    report.out("\n## 4. Markdown-only (legacy) pipeline, 500 synthetic entries\n")
    base = workdir / "s4"
    project = make_project(base / "project", {"semantic_enabled": False})
    rows = synthetic_rows(500, seed=5)
    write_bank(project, (BankEntry(row[4], row[1], f"{row[2]}\n{row[3]}", row[7], row[8]) for row in rows))
    store = base / "store"
    store.mkdir()
    env = base_env(workdir / "home", workdir)
    command = injector(project, store)
    done = check(run_proc(command, env, base)[1], "legacy injector")
    if not done.stdout.startswith("## Engineering Memory") or "semantic:" in done.stdout:
        raise RuntimeError(f"unexpected legacy output: {done.stdout[:300]}")
    samples = repeat_ms(lambda: run_proc(command, env, base), repeat)
    pass_samples = repeat_ms(lambda: run_proc([PY, "-c", "pass"], env, base), repeat)
    med, pass_ms = median(samples), median(pass_samples)
    results = {"entries": len(rows), "injected": done.stdout.count("\n### ") - 3, "injector": summary(samples),
               "python_pass": summary(pass_samples), "ratio_to_python_pass": ratio(med, pass_ms),
               "db_created": (store / "memory.db").exists()}
    table_rows = [("`memory_semantic_enabled: false`, 500 entries", round(med), ratio(med, pass_ms)),
                  ("`python -c pass`", round(pass_ms), 1.0)]
    if floor and "10000" in floor.get("sizes", {}):
        f = floor["sizes"]["10000"]["floor"]["median_ms"]
        table_rows.append(("(section 1 floor at 10,000 entries, for reference)", round(f), ratio(f, pass_ms)))
    report.out(f"Whole process, median of {repeat} after 1 warm-up (parses 3 category files, selects {LIMIT}, "
               "formats, writes .last-injection.json; no database). The markdown reader validates entries with "
               "pydantic, so this path imports it; the semantic hook path does not (ADR 10).\n")
    report.out(table(["run", "median ms", "x python -c pass"], table_rows, right=(1, 2)))
    report.save("4_legacy", results)
    return results
