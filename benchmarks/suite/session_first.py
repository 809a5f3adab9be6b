"""Section 7's first sessions: a new project against the 10,000-entry store, and a project whose bank has 3,000
entries against an empty store (with how long the background run takes to finish that import)."""

from __future__ import annotations

import os
import signal
import sqlite3
import time
from pathlib import Path

from benchmarks.common.bank import BankEntry, write_bank
from benchmarks.common.fixtures import TOPICS, make_project, new_context
from benchmarks.common.processes import diagnostic, injector, path_state, run_proc, states
from benchmarks.common.stats import median
from benchmarks.common.store import CATEGORIES
from benchmarks.common.tables import table
from benchmarks.suite.report import Report


def lessons(project: Path, count: int, tag: str) -> Path:
    """A knowledge bank of `count` entries whose texts are unique to `tag`."""
    return write_bank(project, (BankEntry(
        CATEGORIES[i % 3], f"{TOPICS[i % 10].title()} lesson {tag} {i}",
        f"When the {TOPICS[i % 10]} step fails in run {tag}-{i}, check the {TOPICS[(i * 7) % 10]} first "
        f"and keep the {TOPICS[(i * 3) % 10]} small.", 1 + i % 4, ("high", "medium", "low")[i % 3])
        for i in range(count)), title_case=True)


def first_sessions(report: Report, env: dict, base: Path, big_store: Path, rounds: int, bank_size: int = 3000) -> dict:
    """`rounds` first sessions of each kind (the second with a `bank_size`-entry bank); printed and returned."""
    report.out("\n### First sessions\n")
    out: dict = {"new_project_10k": [], "bank_3000": []}
    for n in range(rounds):
        project = lessons(make_project(base / f"new-project-{n}", {"embedding_provider": "local"}), 12, f"n{n}")
        new_context(project, 5000 + n)  # a new project works on something new: its query needs the model
        ms, done = run_proc(injector(project, big_store), env, base)
        out["new_project_10k"].append({"ms": round(ms, 1), "path": path_state(done.stdout),
                                       "diagnostic": diagnostic(done.stdout)})
    background_env = dict(env, IFLOW_MEMORY_BACKGROUND="1")
    for n in range(rounds):
        project = lessons(make_project(base / f"bank-3000-{n}", {"embedding_provider": "local"}), bank_size, f"b{n}")
        new_context(project, 6000 + n)
        store = base / f"bank-store-{n}"
        last = n == rounds - 1
        ms, done = run_proc(injector(project, store), background_env if last else env, base)
        record = {"ms": round(ms, 1), "path": path_state(done.stdout), "diagnostic": diagnostic(done.stdout),
                  "shown": done.stdout.count("\n### ") - 3}
        if last:
            record["background_import_done_s"] = round(_wait_for_import(store / "memory.db", bank_size), 2)
            _stop_background(store)  # its embedding would load the machine during later measurements
        out["bank_3000"].append(record)
    _print(report, out)
    return out


def _print(report: Report, out: dict) -> None:
    rows = [("new project (12-entry bank) against a 10,000-entry store", *_row(out["new_project_10k"])),
            ("a project whose bank has 3,000 entries, empty store", *_row(out["bank_3000"]))]
    report.out(table(["first session", "median ms", "paths"], rows, right=(1,)))
    last = out["bank_3000"][-1]
    if "importing=" not in last["diagnostic"]:
        report.out("\nThe first session imported all 3,000 entries itself (committed batches, inside its deadline); "
                   "their vectors are left to the background run.")
    elif "background_import_done_s" in last:
        report.out(f"\nThe background run finished the 3,000-entry import {last['background_import_done_s']:.1f} s "
                   "after that session ended (its embedding of the 3,000 entries was stopped there, to keep the "
                   "machine quiet).")
    report.out("\nDiagnostic lines of the first sessions:\n")
    for key in ("new_project_10k", "bank_3000"):
        report.out(f"- {key}: `{out[key][0]['diagnostic']}`")


def _row(records: list[dict]) -> tuple[str, str]:
    return f"{median([r['ms'] for r in records]):.0f}", states([r["path"] for r in records])


def _wait_for_import(db: Path, expected: int, give_up_s: float = 120.0) -> float:
    """Seconds until the database holds `expected` entries (the background run finished the import)."""
    started = time.perf_counter()
    while time.perf_counter() - started < give_up_s:
        try:
            conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            count = conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
            conn.close()
        except sqlite3.Error:
            count = 0
        if count >= expected:
            return time.perf_counter() - started
        time.sleep(0.05)
    return float("nan")


def _stop_background(store: Path) -> None:
    from memory_adapters.shared_work.file_leases import FileLeases

    for holder in FileLeases(str(store)).holders():
        try:
            pid = int(holder.get("pid", 0))
            if pid > 0:  # os.kill(0, ...) would signal this whole process group
                os.kill(pid, signal.SIGTERM)
        except (OSError, ValueError):
            pass
