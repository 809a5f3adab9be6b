"""`iflow-memory trust` and what `doctor` and `list --json` say about each project's knowledge bank (ADR 23):
trusted (the user's own commits, local files, or trusted by command) or kept to its repository, and why."""

from __future__ import annotations

import argparse
import os
from typing import Any

from memory_apps.formatting import JSON_HELP, database_failed, dumps, fail
from memory_apps.store_paths import STORE_HELP, global_store_dir, missing_project
from memory_core.policies.bank_trust import BANK_PREFIX, TRUSTED, WIDE, bank_record, explain, is_trusted, record_trust
from memory_core.safety.inert import one_line
from memory_core.ports.bank_authorship import UNKNOWN
from memory_core.entries.records import CATEGORIES

_FILES = {category: f"{category}.md" for category in CATEGORIES}


def banks(store) -> dict[str, dict[str, Any]]:
    """{project identity: {root, trusted, files: {file: why}}} for every bank an import decided."""
    found = {}
    for key, value in store.metadata_items(BANK_PREFIX).items():
        record = bank_record(value)
        if record is None:
            continue
        identity = key[len(BANK_PREFIX):]
        trusted = is_trusted(store, identity)
        verdicts = {c: TRUSTED if trusted else v for c, v in record["files"].items()}
        # A cloned repository chose its authors' emails: printed inert, as any stored text (ADR 13).
        found[one_line(identity)] = {
            "root": one_line(str(record.get("root"))), "trusted": all(v in WIDE for v in verdicts.values()),
            "unknown": UNKNOWN in verdicts.values(),
            "files": {one_line(_FILES.get(c, str(c))): one_line(explain(v, list(record.get("others") or [])))
                      for c, v in sorted(verdicts.items())}}
    return found


def bank_lines(store) -> list[tuple[bool, str, str]]:
    """(trusted, what doctor says, the command that trusts it) per decided bank, trusted ones first."""
    lines = []
    for identity, bank in sorted(banks(store).items(), key=lambda kv: (not kv[1]["trusted"], str(kv[1]["root"]))):
        files = "; ".join(f"{name} {why}" for name, why in bank["files"].items())
        where = "reaches every project" if bank["trusted"] else "stays in its repository"
        fix = (f"iflow-memory import --project-root {bank['root']}  (asks git again)" if bank["unknown"] else
               f"iflow-memory trust {bank['root']}  (only if you trust its authors)")
        lines.append((bank["trusted"], f"{bank['root']} ({identity}) {where}: {files}", "" if bank["trusted"] else fix))
    return lines


def trust_command(args: argparse.Namespace) -> int:
    """Trust a project's bank: record it, then re-import the bank so its entries reach every project."""
    from memory_apps.config import load_config
    from memory_apps.upkeep.opening import open_store_recovering
    from memory_apps.wiring.container import build_container
    from memory_core.errors import StorageError

    root = os.path.abspath(args.project or args.project_root)
    problem = missing_project(root)
    if problem:
        return fail(problem)
    global_store = global_store_dir(args.global_store)
    try:
        container = build_container(load_config(root), global_store, full_check=True)
        store = open_store_recovering(container, root, global_store, auto_import=False)
        identity = container.layout().identity(root)
        record_trust(store, identity, root, container.clock().now().strftime("%Y-%m-%dT%H:%M:%SZ"))
        report = container.importer().run(root, global_store)
    except StorageError as exc:
        return database_failed(exc)
    if args.json:
        print(dumps({"trusted": root, "project": identity, "new": report.new, "updated": report.updated}))
    else:
        print(f"Trusted {one_line(root)} ({one_line(identity)}): its knowledge bank reaches every project's "
              f"sessions now ({report.new} new, {report.updated} widened)")
    return 0


def add_command(commands, fmt) -> None:
    """Register `trust` on the CLI's sub-parsers."""
    trust = commands.add_parser(
        "trust", help="let a project's knowledge bank reach every project (a bank committed by others)",
        formatter_class=fmt,
        description="A project's docs/knowledge-bank reaches your other projects when you wrote it (every commit "
                    "touching it under your git user.email, or never committed). A bank committed by somebody "
                    "else stays in its repository until you trust the project with this command; the decision "
                    "is kept, so later imports keep it. `iflow-memory promote ID` widens one entry instead.",
        epilog="examples:\n  iflow-memory trust ~/src/team-service\n  iflow-memory trust  # the current project\n\n"
               "exit status: 0 ok, 1 invalid input, 2 database error")
    trust.add_argument("project", nargs="?", default=None, help="the project's directory (default: --project-root)")
    trust.add_argument("--project-root", default=os.getcwd(), help="project directory (default: current)")
    trust.add_argument("--global-store", default=None, help=STORE_HELP)
    trust.add_argument("--json", action="store_true", help=JSON_HELP)
    trust.set_defaults(handler=trust_command)

