"""`iflow-memory doctor`: every check says ok, missing (optional, not a fault) or FIX with a one-line fix."""

from __future__ import annotations

import argparse
import importlib.util
import os
import shlex
import time
from typing import Any

from memory_apps.commands.trust import bank_lines
from memory_apps.config import CONFIG_RELATIVE_PATH, MemoryConfig, collected_problems, load_config
from memory_apps.formatting import count_of, dumps
from memory_apps.store_paths import global_store_dir, missing_project, missing_store
from memory_apps.warm.server import LEASE_TASK as WARM_LEASE
from memory_core.errors import DatabaseCorrupt, StorageError, install_hint
from memory_core.embedding.space import EmbeddingSpace, pinned_space, staged_space

OK, MISSING, FIX = "ok", "missing", "fix"
_MARKS = {OK: "ok  ", MISSING: "--  ", FIX: "FIX "}


def check(status: str, label: str, detail: str, fix: str = "") -> dict[str, Any]:
    """One check as data: its label, ok / missing / fix, what was found, and how to fix it."""
    return {"check": label, "status": status, "detail": detail, "fix": fix if status != OK else ""}


def _ok_or_fix(ok: bool, label: str, detail: str, fix: str = "") -> dict[str, Any]:
    return check(OK if ok else FIX, label, detail, fix)


def doctor_command(args: argparse.Namespace) -> int:
    """Report config, numpy, the mcp extra, the database, FTS5, provider, spaces, pending vectors and background
    work; exit 1 when something needs fixing."""
    store_dir = global_store_dir(args.global_store)
    with collected_problems() as problems:  # the config's warnings become its check's findings
        settings = load_config(args.project_root)
    checks = [_config_check(args.project_root, settings, problems),
              _ok_or_fix(importlib.util.find_spec("numpy") is not None, "numpy", "importable",
                         "pip install numpy  (vector search is skipped without it)"),
              _mcp_check(args.project_root)]
    # A check never creates what it checks; each fix is a command that works from where the user stands.
    if missing_project(args.project_root):
        checks.append(check(FIX, "project", missing_project(args.project_root),
                            "pass an existing project directory with --project-root"))
    if missing_store(store_dir):
        checks.append(check(FIX, "database", missing_store(store_dir),
                            f"{_import_command(args.project_root, store_dir)}  (creates the store), "
                            "or check --global-store"))
    else:
        checks += _store_checks(settings, store_dir, args.project_root)
    return _report(checks, args.json)


def _import_command(project_root: str, store_dir: str) -> str:
    """The `import` that works from here: it exits 1 for a project directory that does not exist, so such a
    --project-root is left out (the current directory is the project then)."""
    project = "" if missing_project(project_root) else f" --project-root {shlex.quote(project_root)}"
    return f"iflow-memory import{project} --global-store {shlex.quote(store_dir)}"


def _config_check(project_root: str, settings: MemoryConfig, problems: list[str]) -> dict[str, Any]:
    path = os.path.join(project_root, CONFIG_RELATIVE_PATH)
    provider = f"memory_embedding_provider: {settings.embedding_provider}"
    if problems:
        return check(FIX, "config", f"{path}: " + "; ".join(problems),
                     f"edit {path}: correct or remove each key named (until then its default applies)")
    if not os.path.lexists(path):
        return check(MISSING, "config", f"{path} missing; the defaults apply ({provider})")
    return check(OK, "config", f"{path} ({provider})")


def _mcp_check(project_root: str) -> dict[str, Any]:
    """The mcp extra: only a fault when Claude Code is set up to start the server it would break."""
    from memory_apps.claude.install import MCP_HINT, mcp_problem, server_registrations

    problem = mcp_problem()
    if problem is None:
        return check(OK, "mcp", "installed (`iflow-memory serve` can start)")
    registered = server_registrations(project_root)
    if registered:
        return check(FIX, "mcp", f"{problem}, but {' and '.join(registered)} registers `iflow-memory serve`: "
                                 "it exits at start", MCP_HINT)
    return check(MISSING, "mcp", f"{problem} (only the MCP server `iflow-memory serve` needs it)", MCP_HINT)


def _database_fix(exc: StorageError, server: bool, store_dir: str, project_root: str) -> str:
    """The fix for a store that does not open: only a damaged file is something `import` rebuilds."""
    if isinstance(exc, DatabaseCorrupt):
        return f"{_import_command(project_root, store_dir)}  (moves the damaged file aside and rebuilds it from markdown)"
    if server:
        return ("check that the PostgreSQL server of IFLOW_MEMORY_DATABASE_URL or memory_database_url is up and "
                "reachable (psql with the same URL)")
    return f"check that {store_dir} and the files in it are yours and writable (ls -la {shlex.quote(store_dir)})"


def _full_text_check(store, server: bool) -> dict[str, Any]:
    """FTS5 for the SQLite file; on PostgreSQL its own full-text index, asked with one real query."""
    if not server:
        return _ok_or_fix(store.keyword_search_available, "FTS5", "keyword search available",
                          "use a Python whose sqlite3 has FTS5 (python.org or distro builds do)")
    try:
        store.keyword_search("doctor", 1)
    except StorageError as exc:
        return check(FIX, "full-text search", f"the PostgreSQL full-text search does not answer: {exc}",
                     "copy the store into a new database, which gets the full schema: "
                     "iflow-memory migrate --to postgresql://…/new-database")
    return check(OK, "full-text search", "PostgreSQL tsvector index answers")


def _store_checks(settings: MemoryConfig, store_dir: str, project_root: str) -> list[dict[str, Any]]:
    from memory_apps.wiring.container import build_container

    container = build_container(settings, store_dir)
    server = bool(container.config.database_url())
    try:
        store = container.store()
    except StorageError as exc:
        return [check(FIX, "database", str(exc), _database_fix(exc, server, store_dir, project_root))]
    checks = [check(OK, "database", f"{store.path} ({count_of(store.count(), 'entry', 'entries')})"), _full_text_check(store, server)]
    plan = container.embedding_plan(want_target=True)
    pinned = pinned_space(store)
    checks.append(_ok_or_fix(plan.target is not None, "embedding provider",
                             EmbeddingSpace.of(plan.target).label if plan.target else plan.problem,
                             f"{install_hint('local')}  or set memory_embedding_provider"))
    checks.append(check(OK, "pinned space", pinned.label if pinned else "none yet (first vectors pin it)"))
    staged = staged_space(store)
    if staged:
        checks.append(check(FIX, "re-embed", f"in progress to {staged.label}", "iflow-memory embed"))
    pending = len(store.pending_ids(1_000_000))
    holders = container.shared_work().leases.holders()
    running = [r for r in holders if r.get("task") != WARM_LEASE]  # the warm process lives long on purpose
    checks.append(_ok_or_fix(pending == 0 or bool(running), "vectors", f"{count_of(pending, 'entry', 'entries')} without a vector"
                             + (" (a background run is embedding them)" if pending and running else ""),
                             "iflow-memory embed"))
    checks.append(_background_check(running))
    checks.append(_warm_check(store_dir, [r for r in holders if r.get("task") == WARM_LEASE]))
    checks += [check(OK if trusted else MISSING, "bank", detail, fix) for trusted, detail, fix in bank_lines(store)]
    return checks


def _warm_check(store_dir: str, warm: list[dict]) -> dict[str, Any]:
    """Whether the prompt and file hooks' warm process is up (it is started by the next hook when it is not)."""
    from memory_apps.warm.hook_process import WARM_ENV, warm_enabled
    from memory_apps.warm.paths import socket_path

    if not warm_enabled():
        return check(MISSING, "warm process", f"off ({WARM_ENV}); the prompt and file hooks answer cold")
    if not warm:
        return check(MISSING, "warm process", "not running; the next prompt or file hook starts it")
    since = max(0, int(time.time() - float(warm[0].get("since", 0))))
    return check(OK, "warm process", f"pid {warm[0].get('pid')} for {since} s on {socket_path(store_dir)}")


def _background_check(running: list[dict]) -> dict[str, Any]:
    """Which background runs and session starts hold a lease now, and whether one looks stuck."""
    if not running:
        return check(OK, "background", "nothing running")
    lines = [f"pid {r.get('pid')} {r.get('task')} for {max(0, int(time.time() - float(r.get('since', 0))))} s"
             + (" (stuck?)" if r.get("stuck") else "") for r in running]
    stuck = [r for r in running if r.get("stuck")]
    return _ok_or_fix(not stuck, "background", "; ".join(lines),
                      f"kill {stuck[0].get('pid')}  (a stuck run; the next session starts a new one)" if stuck else "")


def _report(checks: list[dict[str, Any]], as_json: bool) -> int:
    ok = all(c["status"] != FIX for c in checks)
    if as_json:
        print(dumps({"ok": ok, "checks": checks}))
        return 0 if ok else 1
    for c in checks:
        print(f"{_MARKS[c['status']]} {c['check']}: {c['detail']}" + (f"\n       -> {c['fix']}" if c["fix"] else ""))
    return 0 if ok else 1


def add_command(commands, fmt, store_flags) -> None:
    """Register `doctor` on the CLI's sub-parsers."""
    doctor = commands.add_parser(
        "doctor", help="check provider, pinned space, pending vectors, FTS5, numpy, the mcp extra",
        formatter_class=fmt,
        description="Check the installation and the database. Each line says ok, -- (missing but optional: "
                    "a config file that is not there, the mcp extra when no MCP server is registered) or FIX, "
                    "and every FIX comes with a one-line fix.",
        epilog="examples:\n  iflow-memory doctor --project-root .\n  iflow-memory doctor --json\n\n"
               "exit status: 0 nothing to fix, 1 something to fix (the same with --json)")
    store_flags(doctor)
    doctor.add_argument("--json", action="store_true",
                        help='one JSON document on stdout for scripts, {"ok": ..., "checks": [{"check", "status", '
                             '"detail", "fix"}, ...]}; same exit status')
    doctor.set_defaults(handler=doctor_command)
