"""Section 6: `python -m benchmarks semantic` run as a subprocess, its table printed and its totals parsed."""

from __future__ import annotations

import re
from pathlib import Path

from benchmarks.common.processes import base_env, check, run_proc
from benchmarks.suite.constants import PY, ROOT
from benchmarks.suite.report import Report

ALL_ROW = re.compile(r"\| \*\*all\*\* \| (\d+) \| (\d+) \| (\d+) \| ([\d.]+) / ([\d.]+) \| ([\d.]+) / ([\d.]+) "
                     r"\| (\d+) \|")
FIELDS = (("relevant", int), ("keyword_hits", int), ("local_hits", int), ("recall_keyword", float),
          ("recall_local", float), ("precision_keyword", float), ("precision_local", float),
          ("model_alone_hits", int))


def section_semantic_vs_keyword(report: Report, workdir: Path) -> dict:
    """Run section 6; saved under '6_semantic_vs_keyword'."""
    report.out("\n## 6. Semantic vs. keyword (python -m benchmarks semantic)\n")
    env = base_env(workdir / "home", workdir)
    ms, done = run_proc([PY, "-m", "benchmarks", "semantic"], env, ROOT)
    check(done, "python -m benchmarks semantic")
    report.out(done.stdout.rstrip())
    results: dict = {"wall_s": round(ms / 1000, 1), "output": done.stdout}
    match = ALL_ROW.search(done.stdout)
    if match:
        results["all"] = {name: kind(value) for (name, kind), value in zip(FIELDS, match.groups())}
    report.save("6_semantic_vs_keyword", results)
    return results
