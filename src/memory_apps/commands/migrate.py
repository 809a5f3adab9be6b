"""`iflow-memory migrate`: copy the current store (the global store's SQLite file, or the PostgreSQL server of
IFLOW_MEMORY_DATABASE_URL) into a PostgreSQL database or an SQLite file, losslessly, resumably, idempotently."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, NamedTuple, Optional

from memory_apps.wiring.values import CONNECT_TIMEOUT_S, DB_FILENAME
from memory_apps.formatting import JSON_HELP, database_failed, dumps, fail
from memory_apps.store_paths import STORE_HELP, global_store_dir

NOT_COPIED = ["the cached query vectors (a cache: searches fill it again)",
              "the markdown writes the source still owes (its outbox: the source's own commands replay them)"]

EPILOG = f"""examples:
  iflow-memory migrate --to postgresql://alice@db.example.com/memory --dry-run
  iflow-memory migrate --to postgresql://alice@db.example.com/memory --json
  IFLOW_MEMORY_DATABASE_URL=postgresql://alice@db.example.com/memory iflow-memory migrate --to ~/backup/memory.db
  iflow-memory migrate --to ~/backup/store  # a store directory: then `iflow-memory list --global-store ~/backup/store`
  iflow-memory migrate --from ~/old/{DB_FILENAME} --to postgresql:///memory?host=/var/run/postgresql

Every entry moves with every field (counters, recall times, scopes, anchors), its vector (exact float32), its
staged vector of a re-embed in progress, the tombstones of deleted entries, the entries' history, retired
entries, the old ids of edited ones and what each bank file held at its last import, and the `_metadata` values
(the pinned embedding space among them; not each database's own schema version, id and vectors counter). Who wrote an
entry (`source_user`, PostgreSQL only) is kept between servers; from SQLite it is --source-user. Not copied:
the cached query vectors (a cache: searches fill it again) and the markdown writes the source still owes (its
outbox: the source's own commands replay them).

The target keeps entries it holds that the source does not; one it holds with the same id is overwritten
with the source's. Entries go in batches, one transaction each: running it again writes only what differs,
so an interrupted run is finished by the next one and a finished one changes nothing. A password is best
left to PGPASSWORD or ~/.pgpass (a URL on the command line shows in the process list); it is never printed.

exit status: 0 done (also when there was nothing to copy), 1 invalid input (a bad flag or URL, no source
store, the target is the source, the target holds another embedding space), 2 database error"""


class Location(NamedTuple):
    """A store: a PostgreSQL URL, or an SQLite file's path."""

    url: Optional[str] = None
    path: Optional[str] = None

    def shown(self) -> str:
        """The path, or the URL with its password masked."""
        from memory_apps.database_url import mask_database_url

        return mask_database_url(self.url) if self.url else str(self.path)


SQLITE_HEADER = b"SQLite format 3\x00"


def location(value: str) -> Location:
    """`--to`/`--from`: a PostgreSQL URL, else an SQLite file: a path ending in `.db` or an existing file is one;
    any other path is a store directory (its memory.db), as `--global-store` names one. DatabaseUrlError for a
    URL of another scheme."""
    from memory_apps.database_url import check_database_url

    if "://" in value:
        check_database_url(value)
        return Location(url=value)
    path = os.path.abspath(os.path.expanduser(value))
    is_file = os.path.isfile(path) or (path.endswith(".db") and not os.path.isdir(path))
    return Location(path=path if is_file else os.path.join(path, DB_FILENAME))


def _not_sqlite(path: str) -> bool:
    """Whether `path` is a file with something else than an SQLite database in it (an empty file is a new one)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(SQLITE_HEADER))
    except OSError:
        return False  # missing or unreadable: opening it says what is wrong
    return bool(head) and head != SQLITE_HEADER


def _source(args: argparse.Namespace) -> Location:
    """--from, else the configured server, else the SQLite file of the global store."""
    from memory_apps.config import load_config
    from memory_apps.database_url import check_database_url, configured_url

    if args.source:
        return location(args.source)
    url = configured_url(load_config(args.project_root).database_url)
    if url:
        check_database_url(url)
        return Location(url=url)
    return Location(path=os.path.join(global_store_dir(args.global_store), DB_FILENAME))


def _invalid(source: Location, target: Location, batch_size: int) -> Optional[str]:
    """Why these arguments cannot work, before any database is opened; None when they can."""
    if batch_size < 1:
        return "--batch-size must be at least 1"
    if source.path and not os.path.isfile(source.path):
        return f"no memory store at {source.path}: nothing to copy (check --global-store or --from)"
    if target.path and source.path and os.path.exists(target.path) and os.path.samefile(source.path, target.path):
        return f"the target is the source ({source.path}): nothing to copy"
    if target.path and _not_sqlite(target.path):
        return (f"{target.path} is a file but not an SQLite database (nothing was written); give a store "
                "directory, a new path, or an SQLite file")
    return None


def _open(where: Location, global_store: str) -> Any:
    """The store at `where`, opened as every command opens the configured one."""
    from memory_apps.wiring.resolver import store_at

    return store_at(global_store, db_path=where.path, database_url=where.url)


def _target_tables(target: Location, global_store: str, dry_run: bool, opened: list) -> Any:
    """The target's tables; for a dry run on a target that does not exist yet, an empty stand-in (nothing is
    created)."""
    from memory_apps.wiring.adapter_functions import copy_tables, empty_copy_tables, holds_schema

    if dry_run:
        if target.path and not os.path.exists(target.path):
            return empty_copy_tables(f"SQLite {target.shown()}")
        if target.url and not holds_schema(target.url, CONNECT_TIMEOUT_S):
            return empty_copy_tables(f"PostgreSQL {target.shown()}", keeps_source_user=True)
    store = _open(target, global_store)
    opened.append(store)
    return copy_tables(store)


def _replay_owed_markdown(project_root: str, global_store: str) -> None:
    """Write the markdown the current store still owes this machine (a killed writer's), before its entries move:
    the copy leaves the source's outbox behind."""
    from memory_apps.config import load_config
    from memory_apps.wiring.container import build_container

    container = build_container(load_config(project_root), global_store)
    try:
        for problem in container.reconcile().run().problems[:1]:
            print(f"iflow-memory: {problem}", file=sys.stderr)
    finally:
        container.store().close()


def migrate_command(args: argparse.Namespace) -> int:
    """Copy the current store into --to and say what was copied (one JSON document with --json)."""
    from memory_apps.wiring.adapter_functions import StoreCopyRefused, copy_store, copy_tables
    from memory_apps.database_url import DatabaseUrlError
    from memory_apps.commands.progress import ProgressBar
    from memory_core.errors import StorageError

    try:
        source, target = _source(args), location(args.to)
    except DatabaseUrlError as exc:
        return fail(str(exc))
    problem = _invalid(source, target, args.batch_size)
    if problem:
        return fail(problem)
    global_store = global_store_dir(args.global_store)
    opened: list = []
    bar = ProgressBar("copying entries", enabled=not args.json)
    try:
        if not args.source and not args.dry_run:
            _replay_owed_markdown(args.project_root, global_store)
        opened.append(_open(source, global_store))
        copy, report = copy_store(copy_tables(opened[0]), _target_tables(target, global_store, args.dry_run, opened),
                                  args.source_user or _os_user(), args.batch_size, args.dry_run, bar)
    except StoreCopyRefused as exc:
        return fail(str(exc))
    except StorageError as exc:
        return database_failed(exc)
    finally:
        bar.close()
        for store in opened:
            store.close()
    from_sqlite = copy.target.keeps_source_user and not copy.source.keeps_source_user
    user = (args.source_user or _os_user()) if from_sqlite else None
    if args.json:
        print(dumps(_json(copy, report, source, target, args.dry_run, user)))
    else:
        print(_sentence(copy, report, args.dry_run, user))
    return 0


def _os_user() -> str:
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def _json(copy: Any, report: Any, source: Location, target: Location, dry_run: bool,
          user: Optional[str]) -> dict:
    return {
        "source": source.shown(), "target": target.shown(), "dry_run": dry_run, "changed": report.changed,
        "entries": {"new": report.new, "updated": report.updated, "unchanged": report.unchanged,
                    "unreadable": report.unreadable},
        "vectors": report.vectors, "staged_vectors": report.staged,
        "tombstones": {"copied": report.tombstones_copied, "unchanged": report.tombstones_unchanged},
        "removed_by_tombstones": report.removed,
        "metadata": {"copied": report.metadata_copied, "unchanged": report.metadata_unchanged},
        "lifecycle": {"history_events": report.history_copied, "retired": report.retired_copied,
                      "unretired": report.unretired, "aliases": report.aliases_copied,
                      "bank_files": report.bank_blocks_copied},
        "batches": report.batches, "source_user": user, "not_copied": NOT_COPIED,
    }


def _count(number: int, noun: str, plural: str = "") -> str:
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def _sentence(copy: Any, report: Any, dry_run: bool, user: Optional[str]) -> str:
    source, target = copy.source.description, copy.target.description
    if not report.changed:
        held = report.unchanged
        line = (f"Nothing to copy: {target} already holds all {_count(held, 'entry', 'entries')} "
                f"({_count(report.vectors, 'vector')}), {_count(report.tombstones_unchanged, 'tombstone')} and "
                f"{_count(report.metadata_unchanged, 'metadata value')} of {source}.")
    else:
        verb = "Would copy (dry run, nothing written)" if dry_run else "Copied"
        line = (f"{verb} {source} into {target}: {_count(report.new + report.updated, 'entry', 'entries')} "
                f"({report.new} new, {report.updated} updated; {report.unchanged} already there; "
                f"{_count(report.vectors, 'vector')} and {_count(report.staged, 'staged vector')} in all), "
                f"{_count(report.tombstones_copied, 'tombstone')}"
                + (f" (deleting {_count(report.removed, 'entry', 'entries')} of the target)" if report.removed else "")
                + f", {_count(len(report.metadata_copied), 'metadata value')}"
                + (f" ({', '.join(report.metadata_copied)})" if report.metadata_copied else "")
                + (f", {_count(report.history_copied, 'history event')}, "
                   f"{_count(report.retired_copied, 'retired entry', 'retired entries')}, "
                   f"{_count(report.aliases_copied, 'old id')} of edited entries and the blocks of "
                   f"{_count(report.bank_blocks_copied, 'bank file')}" if report.lifecycle_copied else "")
                + ".")
        if user:
            line += f" Entries from SQLite are recorded as written by {user} (source_user)."
    if report.unreadable:
        line += f" {_count(report.unreadable, 'unreadable entry', 'unreadable entries')} left out (see the warnings)."
    return line + " Not copied: the cached query vectors."


def add_command(commands, fmt) -> None:
    """Register `migrate` on the CLI's sub-parsers."""
    migrate = commands.add_parser(
        "migrate", help="copy the store into a PostgreSQL database or an SQLite file (lossless, resumable)",
        description="Copy the current store (the global store's memory.db, or the PostgreSQL server of "
                    "IFLOW_MEMORY_DATABASE_URL or memory_database_url) into --to: a PostgreSQL database or an "
                    "SQLite file. Running it again copies only what differs.",
        epilog=EPILOG, formatter_class=fmt)
    migrate.add_argument("--to", required=True, metavar="URL|PATH",
                         help="the target: postgresql://…, a store directory (its memory.db, the directory "
                              "created privately if missing; what --global-store names), or an SQLite file "
                              "(an existing one, or a new path ending in .db)")
    migrate.add_argument("--from", dest="source", default=None, metavar="URL|PATH",
                         help="the source, instead of the current store")
    migrate.add_argument("--global-store", default=None, help=STORE_HELP)
    migrate.add_argument("--project-root", default=os.getcwd(),
                         help="project directory whose config may name the server (default: current)")
    migrate.add_argument("--source-user", default=None, metavar="NAME",
                         help="who wrote the entries copied from SQLite into PostgreSQL (default: the OS user)")
    migrate.add_argument("--batch-size", type=int, default=500, metavar="N",
                         help="entries per transaction (default: 500)")
    migrate.add_argument("--dry-run", action="store_true", help="say what would be copied; write nothing")
    migrate.add_argument("--json", action="store_true", help=JSON_HELP)
    migrate.set_defaults(handler=migrate_command)
