"""What the numbers were measured on."""

from __future__ import annotations

import hashlib
import os
import platform
import sqlite3
from pathlib import Path

import numpy as np

from benchmarks.suite.constants import SRC


def machine() -> dict:
    """CPU model, cores, memory, Python, numpy, SQLite and onnxruntime versions, load, a fingerprint of src."""
    info = {"cpu": _cpu(), "logical_cores": os.cpu_count(),
            "usable_cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
            "python": platform.python_version(), "implementation": platform.python_implementation(),
            "numpy": np.__version__, "sqlite": sqlite3.sqlite_version, "platform": platform.platform()}
    try:
        mem = Path("/proc/meminfo").read_text().split("\n")[0].split()[1]
        info["memory_gb"] = round(int(mem) / 1024 / 1024, 1)
    except (OSError, IndexError, ValueError):
        pass
    if hasattr(os, "getloadavg"):
        info["loadavg_at_start"] = [round(x, 2) for x in os.getloadavg()]
    digest = hashlib.sha256()
    for path in sorted(SRC.rglob("*.py")):
        digest.update(str(path.relative_to(SRC)).encode() + b"\0" + path.read_bytes())
    info["src_sha256"] = digest.hexdigest()[:16]
    for module in ("onnxruntime", "tokenizers", "pydantic", "dependency_injector"):
        try:
            info[module] = __import__(module).__version__
        except Exception:  # noqa: BLE001 - optional
            info[module] = None
    return info


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine_rows(info: dict) -> list[tuple[str, object]]:
    """The machine table of the report."""
    return [
        ("CPU", info["cpu"]), ("cores (logical / usable)", f"{info['logical_cores']} / {info['usable_cores']}"),
        ("memory", f"{info.get('memory_gb', '?')} GB"), ("Python", f"{info['python']} ({info['implementation']})"),
        ("numpy", info["numpy"]), ("SQLite", info["sqlite"]), ("onnxruntime", info["onnxruntime"]),
        ("tokenizers", info["tokenizers"]), ("platform", info["platform"]),
        ("load average at start (1/5/15 min)", " / ".join(map(str, info.get("loadavg_at_start", [])))),
        ("src fingerprint (sha256 of src/**/*.py)", info["src_sha256"]),
    ]
