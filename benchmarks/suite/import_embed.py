"""Section 3: `memory_apps.cli import` and `embed` throughput on the real knowledge bank (head)."""

from __future__ import annotations

import re
import shutil
import textwrap
from pathlib import Path

from benchmarks.common.fixtures import copy_bank, write_settings
from benchmarks.common.processes import base_env, check, run_proc
from benchmarks.common.stats import median, summary
from benchmarks.common.tables import table
from benchmarks.suite.constants import KB_HEAD, PY, SHARED
from benchmarks.suite.report import Report

INTRO = """\
    `python -m memory_apps.cli import` and `... embed` as subprocesses into a fresh store each repeat
    (project = a copy of {bank} as docs/knowledge-bank; median of {repeat}).
    - import only: `memory_embedding_provider: none`, so no vectors are computed;
    - import as shipped: provider auto (-> local on a new database), which also embeds the first batch of 50
      after the import (`embed_after_write`);
    - embed: after an import-only run, `memory_embedding_provider: local`, embeds every entry
      (process start + model load + all batches).
    """


def section_import_embed(report: Report, workdir: Path, repeat: int) -> dict:
    """Run section 3 (`repeat` fresh stores); saved under '3_import_embed'."""
    report.out("\n## 3. Import and embed throughput, real knowledge bank (head)\n")
    if report.bank_missing("3_import_embed"):
        return {}
    report.out(textwrap.dedent(INTRO.format(bank=KB_HEAD.relative_to(SHARED.parent), repeat=repeat)))
    env = base_env(workdir / "home", workdir)
    (workdir / "home").mkdir(exist_ok=True)
    samples: dict[str, list[float]] = {"import_only": [], "import_shipped": [], "embed": []}
    counts: dict[str, int] = {}
    for run_number in range(repeat):
        base = workdir / f"s3-{run_number}"
        project = base / "project"
        copy_bank(KB_HEAD, project)
        write_settings(project, {"embedding_provider": "none"})
        ms, out = _cli("import", project, base / "store", env, base)
        counts["imported"] = int(re.search(r"(\d+) new", out).group(1))
        samples["import_only"].append(ms)
        write_settings(project, {"embedding_provider": "local"})
        ms, out = _cli("embed", project, base / "store", env, base)
        counts["embedded"] = int(re.search(r"Embedded (\d+)", out).group(1))
        samples["embed"].append(ms)
        copy_bank(KB_HEAD, base / "shipped")
        samples["import_shipped"].append(_cli("import", base / "shipped", base / "store-shipped", env, base)[0])
        shutil.rmtree(base, ignore_errors=True)
    med = {k: median(v) for k, v in samples.items()}
    results = {"repeat": repeat, **counts, **{k: summary(v) for k, v in samples.items()},
               "import_entries_per_s": round(counts["imported"] / (med["import_only"] / 1000), 1),
               "embed_docs_per_s": round(counts["embedded"] / (med["embed"] / 1000), 1)}
    report.out(table(["command", "entries", "median ms", "rate"], [
        ("import only (provider none)", counts["imported"], round(med["import_only"]),
         f"{results['import_entries_per_s']} entries/s"),
        ("import as shipped (auto: + first 50 embedded)", counts["imported"], round(med["import_shipped"]),
         f"{counts['imported'] / (med['import_shipped'] / 1000):.1f} entries/s"),
        ("embed (local model, all entries)", counts["embedded"], round(med["embed"]),
         f"{results['embed_docs_per_s']} docs/s"),
    ], right=(1, 2, 3)))
    report.save("3_import_embed", results)
    return results


def _cli(command: str, project: Path, store: Path, env: dict, cwd: Path) -> tuple[float, str]:
    """`python -m memory_apps.cli COMMAND` for `project` into `store`: (wall ms, stdout); fails loudly."""
    ms, done = run_proc([PY, "-m", "memory_apps.cli", command, "--project-root", str(project),
                         "--global-store", str(store)], env, cwd)
    return ms, check(done, command).stdout
