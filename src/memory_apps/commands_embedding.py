"""`iflow-memory embed` and `iflow-memory doctor`."""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time

from memory_apps.background import BackgroundWork
from memory_apps.config import CONFIG_RELATIVE_PATH, load_config
from memory_apps.container_config import default_global_store
from memory_apps.progress import ProgressBar
from memory_apps.store_paths import missing_for_reading
from memory_core.errors import StorageError
from memory_core.space import EmbeddingSpace, pinned_space, staged_space


def _global_store(args: argparse.Namespace) -> str:
    return os.path.expanduser(args.global_store) if args.global_store else default_global_store()


def embed_command(args: argparse.Namespace) -> int:
    """Embed every pending entry (or finish a re-embed) with a progress bar; resumable."""
    from memory_apps.container import build_container
    from memory_apps.embedding_jobs import embed_everything

    store_dir = _global_store(args)
    problem = missing_for_reading(store_dir, args.project_root)  # nothing to embed in a store that is not there
    if problem:
        print(f"iflow-memory: {problem}", file=sys.stderr)
        return 1
    try:
        container = build_container(load_config(args.project_root), store_dir)
        bar = ProgressBar("embedding", enabled=not args.quiet)
        report, problem = embed_everything(container, bar, args.max)
        bar.close()
    except StorageError as exc:
        print(f"iflow-memory: database error: {exc}", file=sys.stderr)
        return 2
    if report is None:
        print(f"iflow-memory: nothing embedded: {problem}", file=sys.stderr)
        return 1
    if args.quiet:
        return 0
    space = pinned_space(container.store())
    target = report.migrating_to or (space.label if space else "?")
    line = f"Embedded {report.embedded} entries into {target}; {report.remaining} remaining"
    if report.promoted:
        line += "; re-embed complete, the new space now serves queries"
    if report.rate_limited:
        line += " (stopped: provider rate limit; run `iflow-memory embed` again later to resume)"
    elif report.error:
        line += f" (stopped: {report.error}; run `iflow-memory embed` again to resume)"
    elif report.remaining:
        line += " (run `iflow-memory embed` again to resume)"
    print(line)
    return 0 if not report.error else 1


def _check(ok: bool, label: str, detail: str, fix: str = "") -> tuple[bool, str]:
    mark = "ok  " if ok else "FIX "
    text = f"{mark} {label}: {detail}"
    if not ok and fix:
        text += f"\n       -> {fix}"
    return ok, text


def doctor_command(args: argparse.Namespace) -> int:
    """Report provider, pinned space, pending vectors, FTS5, numpy and background work, each with a fix."""
    from memory_apps.container import build_container, embedding_plan

    store_dir = _global_store(args)
    settings = load_config(args.project_root)
    checks = [_check(True, "config", os.path.join(args.project_root, CONFIG_RELATIVE_PATH)
                     + f" (memory_embedding_provider: {settings.embedding_provider})")]
    checks.append(_check(importlib.util.find_spec("numpy") is not None, "numpy", "importable",
                         "pip install numpy  (vector search is skipped without it)"))
    problem = missing_for_reading(store_dir, args.project_root)  # a check never creates what it checks
    if problem:
        checks.append(_check(False, "database", problem,
                             "check the path, or run `iflow-memory import` to create the store"))
        return _print_checks(checks)
    try:
        container = build_container(settings, store_dir)
        store = container.store()
    except StorageError as exc:
        checks.append(_check(False, "database", str(exc), "iflow-memory import  (rebuilds it from markdown)"))
        return _print_checks(checks)
    checks.append(_check(True, "database", f"{store.path} ({store.count()} entries)"))
    checks.append(_check(store.keyword_search_available, "FTS5", "keyword search available",
                         "use a Python whose sqlite3 has FTS5 (python.org or distro builds do)"))
    plan = embedding_plan(container, want_target=True)
    pinned = pinned_space(store)
    checks.append(_check(plan.target is not None, "embedding provider",
                         EmbeddingSpace.of(plan.target).label if plan.target else plan.problem,
                         "pip install 'iflow-memory[local]'  or set memory_embedding_provider"))
    checks.append(_check(True, "pinned space", pinned.label if pinned else "none yet (first vectors pin it)"))
    staged = staged_space(store)
    if staged:
        checks.append(_check(False, "re-embed", f"in progress to {staged.label}", "iflow-memory embed"))
    pending = len(store.pending_ids(1_000_000))
    running = BackgroundWork(store_dir).leases.holders()
    checks.append(_check(pending == 0 or bool(running), "vectors", f"{pending} entries without a vector"
                         + (" (a background run is embedding them)" if pending and running else ""),
                         "iflow-memory embed"))
    checks.append(_background_check(running))
    return _print_checks(checks)


def _background_check(running: list[dict]) -> tuple[bool, str]:
    """Which background runs and session starts hold a lease now, and whether one looks stuck."""
    if not running:
        return _check(True, "background", "nothing running")
    lines = [f"pid {r.get('pid')} {r.get('task')} for {max(0, int(time.time() - float(r.get('since', 0))))} s"
             + (" (stuck?)" if r.get("stuck") else "") for r in running]
    stuck = [r for r in running if r.get("stuck")]
    return _check(not stuck, "background", "; ".join(lines),
                  f"kill {stuck[0].get('pid')}  (a stuck run; the next session starts a new one)" if stuck else "")


def _print_checks(checks: list[tuple[bool, str]]) -> int:
    for _, text in checks:
        print(text)
    return 0 if all(ok for ok, _ in checks) else 1


def add_commands(commands, fmt) -> None:
    """Register `embed` and `doctor` on the CLI's sub-parsers."""
    embed = commands.add_parser(
        "embed", help="embed every entry that has no vector yet (resumable)", formatter_class=fmt,
        description="Embed pending entries with the configured provider, or finish a re-embed after "
                    "memory_embedding_provider changed. Vectors are stored batch by batch: stop it any time "
                    "and run it again to resume.",
        epilog="examples:\n  iflow-memory embed\n  iflow-memory embed --max 50\n\n"
               "exit status: 0 done, 1 no provider or provider error, 2 database error")
    _store_flags(embed)
    embed.add_argument("--max", type=int, default=None, help="embed at most this many entries")
    embed.add_argument("--quiet", action="store_true", help="no progress bar, no summary")
    embed.set_defaults(handler=embed_command)
    doctor = commands.add_parser(
        "doctor", help="check provider, pinned space, pending vectors, FTS5, numpy", formatter_class=fmt,
        description="Check the installation and the database; every problem comes with a one-line fix.",
        epilog="example:\n  iflow-memory doctor --project-root .\n\nexit status: 0 all ok, 1 something to fix")
    _store_flags(doctor)
    doctor.set_defaults(handler=doctor_command)


def _store_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--project-root", default=os.getcwd(), help="project directory (default: current)")
    parser.add_argument("--global-store", default=None, help="global store directory (default: ~/.claude/iflow/memory)")
