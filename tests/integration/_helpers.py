"""Helpers shared by the integration tests: run the apps as real subprocesses of the venv interpreter."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Optional, Sequence

from tests.conftest import subprocess_env

PYTHON = sys.executable
TIMEOUT_S = 60
SECTION_HEADERS = ("### Anti-Patterns to Avoid", "### Heuristics", "### Patterns to Follow")


def app_env(home: Path) -> dict:
    """subprocess_env plus no detached background embedder (no stray processes outliving a test)."""
    env = subprocess_env(home)
    env["IFLOW_MEMORY_BACKGROUND"] = "0"
    return env


def run_module(module: str, args: Sequence[str], home: Path, cwd: Optional[Path] = None,
               stdin: Optional[str] = None) -> subprocess.CompletedProcess:
    """Run `python -m module args...` with a temp HOME and no API keys; capture text output."""
    return subprocess.run(
        [PYTHON, "-m", module, *map(str, args)],
        env=app_env(home), cwd=str(cwd or home), input=stdin,  # never the repository: writers dual-write to cwd
        capture_output=True, text=True, timeout=TIMEOUT_S,
    )


def run_injector(project: Path, store: Path, home: Path, limit: Optional[int] = None,
                 via_cli: bool = False) -> subprocess.CompletedProcess:
    """The session-start injector (or `cli inject`) for one project and global store."""
    args = ["--project-root", project, "--global-store", store]
    if limit is not None:
        args += ["--limit", str(limit)]
    if via_cli:
        return run_module("memory_apps.cli", ["inject", *args], home)
    return run_module("memory_apps.injector", args, home)


def write_settings(project: Path, **values: object) -> None:
    """Write P/.claude/iflow-dev.local.md with `memory_<key>: value` lines."""
    lines = ["# iflow-dev local settings", ""]
    for key, value in values.items():
        text = str(value).lower() if isinstance(value, bool) else str(value)
        lines.append(f"memory_{key}: {text}")
    path = project / ".claude" / "iflow-dev.local.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def copy_bank(source: Path, project: Path) -> Path:
    """Copy a knowledge bank into P/docs/knowledge-bank."""
    target = project / "docs" / "knowledge-bank"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source, target)
    return target


def entry_headers(block: str) -> list[str]:
    """The `### ` lines of a memory block that are entries (not category section headers)."""
    return [ln for ln in block.splitlines() if ln.startswith("### ") and ln not in SECTION_HEADERS]


def entries_per_section(block: str) -> dict[str, int]:
    """How many entries each category section of a block holds."""
    counts: dict[str, int] = {}
    current = None
    for line in block.splitlines():
        if line in SECTION_HEADERS:
            current = line
            counts[current] = 0
        elif line.startswith("### ") and current is not None:
            counts[current] += 1
    return counts


def diagnostic_line(block: str) -> str:
    """The second non-empty line of a block (the `*Memory: ...*` diagnostic)."""
    lines = [ln for ln in block.splitlines() if ln.strip()]
    return lines[1] if len(lines) > 1 else ""


def db_rows(db: Path, sql: str, params: Sequence = ()) -> list[tuple]:
    """Read rows from a memory.db with a short-lived read-only connection."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def git(project: Path, *args: str) -> None:
    """Run git in a test project with a fixed identity and no user or system config."""
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(project),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
        "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.invalid",
    }
    subprocess.run(["git", "-C", str(project), *args], env=env, check=True, capture_output=True,
                   timeout=TIMEOUT_S)


SPEC_TEXT = """# Spec: parser hardening

Harden the markdown parser of the knowledge bank against malformed files: read real files before
writing a parser, keep round-trip examples for every format, and cut the review iterations that
parser changes have cost so far.

## Requirements

- The parser never crashes on a malformed entry.
"""


def make_realistic_project(root: Path, bank: Optional[Path]) -> Path:
    """A git repo with a knowledge bank, an active feature with a spec, and 4 commits touching files."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    if bank is not None:
        copy_bank(bank, root)
    feature = root / "docs" / "features" / "042-parser-hardening"
    feature.mkdir(parents=True)
    (feature / ".meta.json").write_text(
        '{"status": "active", "slug": "parser-hardening", "lastCompletedPhase": "design"}\n', encoding="utf-8")
    (feature / "spec.md").write_text(SPEC_TEXT, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Start parser hardening")
    touched = ["src/parser/markdown_parser.py", "src/parser/entry_blocks.py",
               "tests/test_markdown_parser.py", "docs/features/042-parser-hardening/design.md"]
    for number, name in enumerate(touched, start=1):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# change {number}: parser hardening\n", encoding="utf-8")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", f"Parser hardening step {number}")
    return root
