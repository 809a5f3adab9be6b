"""Helpers shared by the integration and app tests: run the apps as real subprocesses of the venv interpreter,
or call their `main(argv)` in this process the way a subprocess would see them (`run_in_process`)."""

from __future__ import annotations

import atexit
import functools
import importlib
import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import threading
import traceback
import weakref
from pathlib import Path
from typing import Mapping, Optional, Sequence

import pytest

from tests.conftest import PROJECT_ROOT, SESSION_DEADLINE_ENV, subprocess_env

PYTHON = sys.executable
# How long a test waits for an app process before calling it hung: well past the 60 s session deadline the suite
# gives every session start (tests/conftest.py), and past what a 5x slower, busy machine needs for an import.
TIMEOUT_S = 180
# The environment change (for app_env, run_module, run_in_process) of a test whose point is the product's own
# session deadline (2 s): the suite's 60 s removed.
PRODUCT_DEADLINE: dict[str, Optional[str]] = {SESSION_DEADLINE_ENV: None}
SECTION_HEADERS = ("### Anti-Patterns to Avoid", "### Heuristics", "### Patterns to Follow")
# The store of the apps a test runs: the `backend` fixture (_backend.py) puts its PostgreSQL database's URL here for
# the test's duration; empty, the apps use the SQLite file of their global store.
BACKEND_ENV: dict[str, str] = {}


def app_env(home: Path, changes: Optional[Mapping[str, Optional[str]]] = None) -> dict:
    """subprocess_env plus no detached background embedder (no stray processes outliving a test) and the test's
    store (BACKEND_ENV), then `changes` (None removes a variable)."""
    env = subprocess_env(home)
    env["IFLOW_MEMORY_BACKGROUND"] = "0"
    env.update(BACKEND_ENV)
    for key, value in (changes or {}).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def run_module(module: str, args: Sequence[object], home: Path, cwd: Optional[Path] = None,
               stdin: Optional[str] = None,
               env: Optional[Mapping[str, Optional[str]]] = None) -> subprocess.CompletedProcess:
    """Run `python -m module args...` with a temp HOME and no API keys (plus `env`, as in app_env); capture text
    output."""
    return subprocess.run(
        [PYTHON, "-m", module, *map(str, args)],
        env=app_env(home, env), cwd=str(cwd or home), input=stdin,  # never the repository: writers dual-write to cwd
        capture_output=True, text=True, timeout=TIMEOUT_S,
    )


# The apps whose `main(argv)` may run in the test process. A session start (`python -m memory_apps.injector`,
# `iflow-memory inject`, `iflow-memory hook`) leaves with os._exit and is a process of its own kind (no
# detect-secrets, its import budget, its deadline counted from the process start): it runs with run_module; in
# here only the injector's --help.
IN_PROCESS_MAINS = ("memory_apps.cli", "memory_apps.writer", "memory_apps.injector")


class ProcessExit(BaseException):
    """An in-process call reached os._exit: that command must run as a subprocess."""


def run_in_process(module: str, args: Sequence[object], home: Path, cwd: Optional[Path] = None,
                   stdin: Optional[str] = None,
                   env: Optional[Mapping[str, Optional[str]]] = None) -> subprocess.CompletedProcess:
    """`run_module` without the process: call `module.main(args)` here and return what a child would have.

    The call sees what `run_module`'s child sees: the environment of `app_env(home)` (plus `env`; None removes a
    variable), `cwd` (default `home`), `stdin`, a pipe-like stdout/stderr (not a terminal), no process-wide
    cache left by an earlier call. An uncaught exception is a traceback on stderr and exit status 1, SystemExit
    its code. Then what the end of a process does: non-daemon threads joined, the atexit callbacks registered
    during the call run (the stores close there), and every SQLite connection the call opened is closed.
    Everything is restored afterwards, so nothing leaks into the next call or the real HOME.
    """
    argv = [str(a) for a in args]
    if module not in IN_PROCESS_MAINS or (module == "memory_apps.injector" and "--help" not in argv):
        raise ValueError(f"{module} {argv}: a session start runs as a process of its own (run_module)")
    main = importlib.import_module(module).main
    target = app_env(home, env)
    out, err = io.StringIO(), io.StringIO()
    threads_before = set(threading.enumerate())
    exit_callbacks: list = []
    connections: list = []
    register = atexit.register
    with pytest.MonkeyPatch.context() as patch:
        for key in [k for k in os.environ if k not in target]:
            patch.delenv(key)
        for key, value in target.items():
            patch.setenv(key, value)
        patch.chdir(cwd or home)
        patch.setattr(sys, "stdin", io.StringIO(stdin or ""))
        patch.setattr(sys, "stdout", out)
        patch.setattr(sys, "stderr", err)
        patch.setattr(atexit, "register", _recording(exit_callbacks))
        patch.setattr(atexit, "unregister", lambda func: _forget(exit_callbacks, func))
        patch.setattr(os, "_exit", _refuse_process_exit)
        patch.setattr(sqlite3, "connect", _tracking(sqlite3.connect, connections))
        _clear_process_caches()
        try:
            status = _exit_status(main(argv), err)
        except SystemExit as exc:
            status = _exit_status(exc.code, err)
        except ProcessExit:
            raise
        except Exception:  # noqa: BLE001 - what the interpreter does with an uncaught exception
            traceback.print_exc(file=err)
            status = 1
        _end_of_process(threads_before, exit_callbacks, register, connections, err)
    return subprocess.CompletedProcess([module, *argv], status, out.getvalue(), err.getvalue())


def run_app(module: str, args: Sequence[object], home: Path, stdin: Optional[str] = None,
            env: Optional[Mapping[str, Optional[str]]] = None, process: bool = False) -> subprocess.CompletedProcess:
    """An app without CLAUDE_PROJECT_DIR (the project comes from the flags or the hook's event): a session start
    (the injector, `hook`, `inject`) as the process it is, any other command in-process unless `process`."""
    changes = {"CLAUDE_PROJECT_DIR": None, **(env or {})}
    session_start = module == "memory_apps.injector" or [str(a) for a in args][:1] in (["hook"], ["inject"])
    run = run_module if process or session_start else run_in_process
    return run(module, args, home, stdin=stdin, env=changes)


def run_hook(project: Path, store: Path, home: Path) -> subprocess.CompletedProcess:
    """`iflow-memory hook session-start` for a session starting in `project`, as Claude Code runs it."""
    return run_app("memory_apps.cli", ["hook", "session-start", "--global-store", store], home,
                   stdin=json.dumps({"source": "startup", "cwd": str(project)}))


def upsert_args(store: Path, project: Path, entry: dict) -> list[str]:
    """The writer's arguments that store `entry` (the --entry-json) in `store` for `project`."""
    return ["--action", "upsert", "--global-store", str(store), "--project-root", str(project),
            "--entry-json", json.dumps(entry)]


def _recording(callbacks: list):
    def register(func, *args, **kwargs):
        callbacks.append((func, args, kwargs))
        return func
    return register


class _TrackedConnection(sqlite3.Connection):
    """A connection like any other that a weak reference can follow (sqlite3.Connection itself cannot)."""


def _tracking(connect, connections: list):
    def tracked_connect(*args, **kwargs):
        kwargs.setdefault("factory", _TrackedConnection)
        conn = connect(*args, **kwargs)
        connections.append(weakref.ref(conn))
        return conn
    return tracked_connect


def _forget(callbacks: list, func) -> None:
    callbacks[:] = [c for c in callbacks if c[0] != func]


def _refuse_process_exit(status: int = 0) -> None:
    raise ProcessExit(f"os._exit({status}) in an in-process call: run this command with run_module")


def _exit_status(code: object, err: io.StringIO) -> int:
    """The exit status sys.exit(code) gives a process."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=err)
    return 1


def _clear_process_caches() -> None:
    """Empty the memoised functions of the apps' modules (a project's identity among them), as a new process
    starts with them empty."""
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] in ("memory_core", "memory_adapters", "memory_apps") and module is not None:
            for value in list(vars(module).values()):
                if isinstance(value, functools._lru_cache_wrapper):
                    value.cache_clear()


def _end_of_process(threads_before: set, exit_callbacks: list, register, connections: list,
                    err: io.StringIO) -> None:
    for thread in set(threading.enumerate()) - threads_before:
        if not thread.daemon:
            thread.join()
    for func, args, kwargs in reversed(exit_callbacks):
        try:
            func(*args, **kwargs)
        except Exception:  # noqa: BLE001 - the interpreter reports it and goes on
            print("Exception ignored in atexit callback", file=err)
            traceback.print_exc(file=err)
        if not hasattr(func, "__self__"):  # a module's own callback: it was registered once per process
            register(func, *args, **kwargs)
    for ref in connections:  # still open: held by a reference cycle, or forgotten; a process end closes it
        conn = ref()
        if conn is not None:
            conn.close()
    left = [t.name for t in set(threading.enumerate()) - threads_before if t.is_alive()]
    assert not left, f"threads outlived an in-process call (a process would have dropped them): {left}"


# A session that ranked with vectors says so in its diagnostic line; group 1 counts the vector matches.
SEMANTIC_ACTIVE = re.compile(r"semantic: active \(vector=(\d+), fts5=(\d+)")


def model_env(ceiling: Path) -> dict:
    """The environment changes (for app_env, run_module, run_in_process) of the tests whose point is what the local
    model finds: git may not look above `ceiling` and no Ollama host (the session's deadline is the suite's, as for
    every test: tests/conftest.py)."""
    return {"GIT_CEILING_DIRECTORIES": str(ceiling), "OLLAMA_HOST": None}


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


def entry_names(block: str) -> list[str]:
    """The names of a block's entries, without the `Anti-Pattern: ` or `Pattern: ` a header starts with."""
    names = []
    for header in entry_headers(block):
        name = header[4:]
        for prefix in ("Anti-Pattern: ", "Pattern: "):
            name = name[len(prefix):] if name.startswith(prefix) else name
        names.append(name)
    return names


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


def every_file_text(*roots: Path) -> dict[str, str]:
    """The text of every file under `roots` (bytes that are not UTF-8 left out), by path."""
    found = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file():
                found[str(path)] = path.read_bytes().decode("utf-8", errors="ignore")
    return found


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


def committed_project(project: Path, files: Mapping[str, str], **settings: object) -> Path:
    """A git project whose `files` (relative path -> text) are committed, with these settings (keyword search
    only unless told otherwise): what a learning's citations are checked against."""
    for relative, text in files.items():
        (project / relative).parent.mkdir(parents=True, exist_ok=True)
        (project / relative).write_text(text)
    write_settings(project, **{"embedding_provider": "none", **settings})
    git(project, "init", "-q")
    git(project, "add", ".")
    git(project, "commit", "-qm", "first")
    return project


def write_active_feature(project: Path, folder: str, slug: str, spec: str, **meta: str) -> Path:
    """P/docs/features/<folder>: a .meta.json naming `slug` the active feature (plus `meta`) and `spec` as spec.md."""
    feature = project / "docs" / "features" / folder
    feature.mkdir(parents=True, exist_ok=True)
    (feature / ".meta.json").write_text(json.dumps({"status": "active", "slug": slug, **meta}) + "\n",
                                        encoding="utf-8")
    (feature / "spec.md").write_text(spec, encoding="utf-8")
    return feature


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
    write_active_feature(root, "042-parser-hardening", "parser-hardening", SPEC_TEXT, lastCompletedPhase="design")
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


DEMO_PROJECT = PROJECT_ROOT / "examples" / "demo-project"


def demo_shop(root: Path) -> tuple[Path, Path, Path]:
    """(home, project, global store) under `root`: the README demo project with its bank imported, keyword
    ranking only (no model)."""
    from memory_apps import cli

    home, project, store = root / "home", root / "demo-project", root / "G"
    home.mkdir()
    shutil.copytree(DEMO_PROJECT, project)
    write_settings(project, embedding_provider="none")
    assert cli.main(["import", "--project-root", str(project), "--global-store", str(store)]) == 0
    return home, project, store
