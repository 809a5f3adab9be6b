"""What a prompt hook process imports when the warm server answers it (`python -X importtime`): the cost of its
path up to the question on the socket, and which module pulls in anything heavy."""

from __future__ import annotations

import statistics
import subprocess
from pathlib import Path

from benchmarks.common.processes import PY
from benchmarks.hook_latency import events
from benchmarks.hook_latency.hook_process import PROMPT, hook_command

HEAVY = ("pydantic", "pydantic_core", "numpy", "sqlite3", "onnxruntime", "tokenizers", "dependency_injector",
         "httpx", "memory_apps.wiring.resolver", "memory_apps.session.moment", "memory_core.usecases.recall",
         "memory_apps.injector", "memory_apps.config", "memory_apps.session.injection")
"""Modules a hook the warm process answers does not need: libraries, and the project's cold-path modules."""


def parse_importtime(stderr: str) -> list[tuple[int, int, int, str]]:
    """(self µs, cumulative µs, depth, module) per `import time:` line, in the order Python printed them
    (a module's line follows its own imports' lines)."""
    rows = []
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        own, cumulative, name = line[len("import time:"):].split("|")
        if not own.strip().isdigit():
            continue  # the header line
        depth = (len(name) - len(name.lstrip(" "))) // 2
        rows.append((int(own), int(cumulative), depth, name.strip()))
    return rows


def importer_chain(rows: list[tuple[int, int, int, str]], index: int) -> list[str]:
    """The module at `index` and, outward, the modules whose import pulled it in (the top-level one last)."""
    chain = [rows[index][3]]
    depth = rows[index][2]
    for _own, _cumulative, d, name in rows[index + 1:]:
        if d < depth:
            chain.append(name)
            depth = d
    return chain


def heavy_imports(rows: list[tuple[int, int, int, str]]) -> dict[str, dict]:
    """Each HEAVY module that was imported: its cumulative ms and the chain of importers that brought it in."""
    found = {}
    for i, (_own, cumulative, _depth, name) in enumerate(rows):
        if name in HEAVY and name not in found:
            found[name] = {"cumulative_ms": round(cumulative / 1000, 1), "pulled_in_by": importer_chain(rows, i)[1:]}
    return found


def probe(store: Path, project: Path, env: dict, repeat: int) -> dict:
    """`repeat` warm-answered prompt hooks under -X importtime: total import ms (median), the top-level imports
    of the last run by cost, and the heavy modules it imported with who imported them."""
    baseline = subprocess.run([PY, "-X", "importtime", "-c", "pass"], env=env, capture_output=True, text=True,
                              timeout=120)
    python_alone = sum(c for _o, c, d, _n in parse_importtime(baseline.stderr) if d == 0) / 1000
    totals, rows = [], []
    for n in range(repeat):
        command = [PY, "-X", "importtime", *hook_command(PROMPT, store)[1:]]
        done = subprocess.run(command, input=events.prompt_event(project, f"import probe {n}: csv rows break"),
                              env={**env, "CLAUDE_PROJECT_DIR": str(project)}, cwd=str(project),
                              capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"import probe failed: {done.stderr[-2000:]}")
        rows = parse_importtime(done.stderr)
        totals.append(sum(cumulative for _own, cumulative, depth, _name in rows if depth == 0) / 1000)
    top = sorted(((name, round(cumulative / 1000, 1)) for _own, cumulative, depth, name in rows if depth == 0),
                 key=lambda item: -item[1])
    return {"runs": repeat, "import_ms_median": round(statistics.median(totals), 1),
            "python_alone_import_ms": round(python_alone, 1), "modules": len(rows),
            "top_level": top[:12], "heavy": heavy_imports(rows)}
