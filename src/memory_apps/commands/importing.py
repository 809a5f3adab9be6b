"""`iflow-memory import`: knowledge-bank markdown into the database, idempotent."""

from __future__ import annotations

import argparse
import os
import sys

from memory_apps.wiring.values import DB_FILENAME
from memory_apps.formatting import JSON_HELP, database_failed, dumps, fail
from memory_apps.store_paths import STORE_HELP, global_store_dir, missing_project

EPILOG = """examples:
  iflow-memory import --project-root . --global-store ~/.claude/iflow/memory
  iflow-memory import --json

exit status: 0 ok, 1 invalid input (a bad flag, a project directory that does not exist), 2 database error"""


def import_command(args: argparse.Namespace) -> int:
    """Import markdown entries and print what changed (one JSON document with --json)."""
    from memory_apps.config import load_config
    from memory_apps.upkeep.opening import open_store_recovering
    from memory_apps.wiring.container import build_container
    from memory_apps.upkeep.embedding_jobs import embed_after_write
    from memory_core.policies.bank_trust import REASONS, WIDE
    from memory_core.errors import StorageError
    from memory_core.safety.inert import one_line

    problem = missing_project(args.project_root)  # a mistyped path would import nothing and still say "ok"
    if problem:
        return fail(problem)
    global_store = global_store_dir(args.global_store)
    try:
        container = build_container(load_config(args.project_root), global_store, full_check=True)
        store = open_store_recovering(container, args.project_root, global_store, auto_import=False)
        report = container.importer().run(args.project_root, global_store)
        if report.new or report.updated or report.edited or report.restored:
            embed_after_write(container)
    except StorageError as exc:
        return database_failed(exc)
    for problem in report.problems:
        print(f"iflow-memory: {one_line(problem)}", file=sys.stderr)
    kept = [f"{c}.md ({REASONS[verdict]})" for c, verdict in sorted(report.banks.items()) if verdict not in WIDE]
    if kept:  # the user should know why these entries do not reach their other projects (ADR 23)
        print(f"iflow-memory: the entries of {', '.join(kept)} stay in this repository; `iflow-memory trust "
              f"{one_line(os.path.abspath(args.project_root))}` lets them reach every project", file=sys.stderr)
    database = store.path  # the SQLite file, or the server's URL with its password masked
    if args.json:
        print(dumps({"database": database, "new": report.new, "updated": report.updated,
                     "unchanged": report.unchanged, "skipped": report.skipped, "duplicates": report.duplicates,
                     "deleted": report.deleted, "edited": report.edited, "retired": report.retired,
                     "restored": report.restored, "still_retired": report.still_retired,
                     "problems": list(report.problems), "banks": report.banks}))
        return 0
    print(
        f"Imported into {database}: {report.new} new, {report.updated} updated, "
        f"{report.unchanged} unchanged, {report.skipped} skipped ({report.duplicates} duplicates merged"
        + (f", {report.deleted} deleted earlier and left out" if report.deleted else "")
        + (f", {report.still_retired} retired earlier and left out" if report.still_retired else "") + ")"
    )
    print(f"Bank edits: {report.edited} edited (the new text keeps its entry), {report.retired} retired (gone "
          "from the bank: kept, restorable)"
          + (f", {report.restored} restored (back in the bank)" if report.restored else ""))
    return 0


def add_command(commands, fmt) -> None:
    """Register `import` on the CLI's sub-parsers."""
    imp = commands.add_parser("import", help="import knowledge-bank markdown into the database (idempotent)",
                              description="Import docs/knowledge-bank/*.md of the project and the global "
                                          f"store's *.md into the database ({DB_FILENAME} in the global store, or the "
                                          "PostgreSQL server of IFLOW_MEMORY_DATABASE_URL). Re-importing changes "
                                          "nothing. A bank block whose heading stayed and whose text changed "
                                          "updates its entry (counts and history kept); a block removed from "
                                          "the bank retires its entry (kept, restorable), unless another bank "
                                          "or the global store still holds it.",
                              epilog=EPILOG, formatter_class=fmt)
    imp.add_argument("--project-root", default=os.getcwd(), help="project directory (default: current)")
    imp.add_argument("--global-store", default=None, help=STORE_HELP)
    imp.add_argument("--json", action="store_true", help=JSON_HELP)
    imp.set_defaults(handler=import_command)
