"""`iflow-memory search | list | show | delete | stats | export`."""

from __future__ import annotations

import argparse
import os
from collections import Counter
from typing import TYPE_CHECKING, Optional

from memory_apps.formatting import JSON_HELP, count_of, database_failed, dumps, entry_dict, fail, fields, table
from memory_apps.store_paths import STORE_HELP, global_store_dir, missing_for_reading
from memory_core.policies.entry_ids import AmbiguousId
from memory_core.errors import InvalidEntry, StorageError
from memory_core.entries.request_checks import MAX_LIMIT, check_limit, check_query
from memory_core.safety.inert import one_line
from memory_core.entries.records import CATEGORIES
from memory_core.usecases.check_anchors import notes

if TYPE_CHECKING:
    from memory_apps.service import MemoryService


def _service(args: argparse.Namespace) -> MemoryService:
    from memory_apps.service import MemoryService  # the container's import cost is paid only by these commands

    return MemoryService(args.global_store, args.project_root, tool="cli")


def search_command(args: argparse.Namespace) -> int:
    """Hybrid search for a query: the good matches (relevance at least the search floor), or with --all every
    result, the weak ones marked."""
    query = " ".join(args.query)
    try:
        found = _service(args).search(query, args.limit, args.category, include_weak=args.all)
    except InvalidEntry as exc:
        return _invalid(exc)
    if args.json:
        print(dumps([_search_hit(r, found.is_good(r) if args.all else None, found.anchors.get(r.entry.id, []))
                     for r in found.selected]))
        return 0
    if not found.selected:
        if found.total == 0:
            print("No entries.")
        else:  # the query is the user's, but it may be pasted from anywhere: printed inert
            print(f'no good match for "{one_line(query)}"\n'
                  f"(`iflow-memory search --all ...` shows the closest entries anyway)")
        return 0
    columns = ["relevance", "score", "id", "category", "name"] + (["match"] if args.all else [])
    rows = []
    for r in found.selected:
        rows.append((_relevance_text(r.relevance), f"{r.score:.3f}", r.entry.id, r.entry.category, r.entry.name)
                    + (("good" if found.is_good(r) else "weak",) if args.all else ()))
        marked = notes(found.anchors.get(r.entry.id, []))
        if marked:  # a line under the hit: what the check of its citations found (ADR 26)
            rows.append(("", "", "", "", f"  {marked}") + (("",) if args.all else ()))
    print(table(columns, rows, [0, 0, 0, 0, 70, 0], right=[0, 1], whole=[0, 1, 2, 3]))
    return 0


def _search_hit(ranked, good: Optional[bool], states=()) -> dict:
    """One result as JSON: the entry, its score and relevance (and with --all whether it is a good match), and
    `anchors`: how each citation it took in this project stands today ({reference, state, moved_to})."""
    data = entry_dict(ranked.entry, ranked.score)
    data["relevance"] = None if ranked.relevance is None else round(ranked.relevance, 3)
    if good is not None:
        data["good_match"] = good
    data["anchors"] = [{"reference": s.reference, "state": s.state, "moved_to": s.moved_to} for s in states]
    return data


def _relevance_text(relevance: Optional[float]) -> str:
    return "-" if relevance is None else f"{relevance:.3f}"


def list_command(args: argparse.Namespace) -> int:
    """List entries with optional filters."""
    service = _service(args)
    if getattr(args, "retired", False):
        from memory_apps.commands.entry_story import list_retired

        return list_retired(service, args)
    entries = service.entries()
    if args.category:
        entries = [e for e in entries if e.category == args.category]
    if args.project:
        entries = [e for e in entries if (e.source_project or "") == args.project]
    if args.source:
        entries = [e for e in entries if e.source == args.source]
    if args.json:
        from memory_apps.commands.trust import banks

        found = banks(service.container.store())
        print(dumps([_with_bank(entry_dict(e), found) for e in entries]))
        return 0
    rows = [(e.id, e.category, e.observation_count, e.recall_count, e.source, e.source_project or "-", e.name)
            for e in entries]
    print(table(["id", "category", "obs", "recalls", "source", "project", "name"], rows, [0, 0, 0, 0, 0, 20, 60],
                right=[2, 3], whole=[0, 1, 2, 3]))
    print(f"\n{count_of(len(entries), 'entry', 'entries')}")
    return 0


def _with_bank(data: dict, found: dict) -> dict:
    """An entry kept to one project says which bank it came from, that it is not trusted, and why (ADR 23)."""
    bank = found.get(data.get("scope") or "")
    if bank is not None:
        data["bank"] = {key: bank[key] for key in ("root", "trusted", "files")}
    return data


def _invalid(exc: InvalidEntry) -> int:
    return fail(f"invalid {exc.field}: {one_line(exc.message)}")


def _not_found(entry_id: str) -> int:
    return fail(f"no entry with id {one_line(entry_id)}")


def _resolved(service: MemoryService, text: str) -> tuple[Optional[str], int]:
    """(full id, 0) for an id or unique prefix; (None, exit status) after saying why not."""
    try:
        entry_id = service.resolve_id(text)
    except AmbiguousId as exc:
        named = {i: e for i in exc.candidates if (e := service.get(i)) is not None}
        lines = [f"  {i}  {named[i].category}  {one_line(named[i].name)}" if i in named else f"  {i}"
                 for i in exc.candidates]
        return None, fail(f"id prefix {exc.prefix} is ambiguous; the candidates are:\n" + "\n".join(lines))
    except InvalidEntry as exc:
        return None, _invalid(exc)
    return (entry_id, 0) if entry_id else (None, _not_found(text))


def show_command(args: argparse.Namespace) -> int:
    """Show one entry in full (by id or a unique prefix), retired ones and edited-away ids too, with its story:
    what became of it, its anchors and its history."""
    from memory_apps.commands.entry_story import located, story_dict, story_lines

    service = _service(args)
    if not _keeps_lifecycle(service):
        return _show_plain(service, args)
    found, status = located(service, args.id)
    if found is None:
        return status
    entry = found.entry if found.entry is not None else found.retired.entry
    if args.json:
        print(dumps({**entry_dict(entry), **story_dict(service, found)}))
        return 0
    head, tail = story_lines(service, found)
    data = {k: v for k, v in entry_dict(entry).items() if k != "anchors"}
    print("\n".join(head + [fields(data, multi_line=("description", "reasoning"))] + tail))
    return 0


def _keeps_lifecycle(service: MemoryService) -> bool:
    from memory_core.ports.entry_lifecycle import EntryLifecycle

    return isinstance(service.container.store(), EntryLifecycle)


def _show_plain(service: MemoryService, args: argparse.Namespace) -> int:
    entry_id, status = _resolved(service, args.id)
    entry = service.get(entry_id) if entry_id else None
    if entry is None:
        return status or _not_found(args.id)
    if args.json:
        print(dumps(entry_dict(entry)))
        return 0
    print(fields(entry_dict(entry), multi_line=("description", "reasoning")))
    return 0


def delete_command(args: argparse.Namespace) -> int:
    """Delete one entry (by id or a unique prefix)."""
    service = _service(args)
    entry_id, status = _resolved(service, args.id)
    if entry_id is None or not service.delete(entry_id):
        return status or _not_found(args.id)
    print(dumps({"deleted": entry_id}) if args.json else f"Deleted {entry_id}")
    return 0


def promote_command(args: argparse.Namespace) -> int:
    """Make one project's entry universal (by id or a unique prefix): every project's sessions see it from now on."""
    service = _service(args)
    entry_id, status = _resolved(service, args.id)
    if entry_id is None or not service.promote(entry_id):
        return status or _not_found(args.id)
    if args.json:
        print(dumps({"promoted": entry_id}))
    else:
        print(f"Promoted {entry_id}: every project's sessions see it now")
    return 0


def stats_command(args: argparse.Namespace) -> int:
    """Counts per category, source and project, recalls and vectors."""
    entries = _service(args).entries()
    stats = {
        "entries": len(entries),
        "with_vector": sum(1 for e in entries if e.has_embedding),
        "recalls": sum(e.recall_count for e in entries),
        "by_category": dict(Counter(e.category for e in entries)),
        "by_source": dict(Counter(e.source for e in entries)),
        "by_project": dict(Counter(e.source_project or "(global)" for e in entries)),
    }
    if args.json:
        print(dumps(stats))
        return 0
    print(f"entries: {stats['entries']}  with vector: {stats['with_vector']}  recalls: {stats['recalls']}")
    for key in ("by_category", "by_source", "by_project"):
        rows = sorted(stats[key].items(), key=lambda kv: -kv[1])
        print()
        print(table([key.replace("by_", ""), "entries"], rows, right=[1]))
    return 0


def export_command(args: argparse.Namespace) -> int:
    """Write the database as knowledge-bank markdown (re-importable)."""
    from memory_apps.wiring.adapter_functions import export_history, export_markdown
    from memory_core.ports.entry_lifecycle import EntryLifecycle

    service = _service(args)
    entries = service.entries()
    store = service.container.store()
    try:
        written = export_markdown(entries, args.output)  # creates the output directory (0700)
        history = export_history(args.output, store.all_history(), store.retired_entries()) \
            if isinstance(store, EntryLifecycle) else None  # retired entries, edits and history (ADR 26)
    except OSError as exc:
        return fail(f"cannot export to {args.output}: {os_problem(exc)}")
    if args.json:
        files = [{"path": str(path), "entries": count} for path, count in written]
        extra = {"history": {"path": history[0], "events": history[1]}} if history else {}
        print(dumps({"output": args.output, "entries": sum(count for _, count in written), "files": files, **extra}))
        return 0
    for path, count in written:
        print(f"wrote {count_of(count, 'entry', 'entries')} to {path}")
    if history:
        print(f"wrote {count_of(history[1], 'event', 'events')} of history to {history[0]}")
    return 0


def os_problem(exc: OSError) -> str:
    """An OSError in words ("... is a file, not a directory"), without Python's `[Errno 17]` prefix."""
    import errno

    where = exc.filename or "a path"
    if exc.errno in (errno.EEXIST, errno.ENOTDIR):
        return f"{where} is a file, not a directory" if os.path.isfile(where) else f"a part of {where} is a file"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"no permission to write {where}"
    return f"{(exc.strerror or type(exc).__name__).lower()}: {where}"


def _store_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--project-root", default=os.getcwd(), help="project directory (default: current)")
    parser.add_argument("--global-store", default=None, help=STORE_HELP)


def add_commands(commands, fmt) -> None:
    """Register the entry commands on the CLI's sub-parsers."""
    def add(name, handler, help_text, epilog, precheck=None):
        parser = commands.add_parser(name, help=help_text, description=help_text[0].upper() + help_text[1:] + ".",
                                     epilog=epilog + "\n\nexit status: 0 ok, 1 not found or invalid input, "
                                     "2 database error", formatter_class=fmt)
        _store_flags(parser)
        parser.set_defaults(handler=_guard(handler, precheck))
        return parser

    search = add("search", search_command, "search memories by meaning and keywords",
                 "Shows good matches only: relevance (0-1, one scale for every query) at least the floor; else "
                 "\"no good match\".\n\n"
                 "examples:\n  iflow-memory search parsing csv files\n  iflow-memory search --category patterns "
                 "--limit 5 deploy rollback --json\n  iflow-memory search --all sqlite locking", precheck=_check_search)
    search.add_argument("query", nargs="+", help="what to look for")
    search.add_argument("--limit", type=int, default=10, help=f"how many results, 1-{MAX_LIMIT} (default 10)")
    search.add_argument("--category", choices=CATEGORIES, help="only this category")
    search.add_argument("--all", action="store_true",
                        help="also show results under the relevance floor (marked weak): the closest entries even "
                             "when nothing matches well")
    search.add_argument("--json", action="store_true", help=JSON_HELP)

    listing = add("list", list_command, "list stored memories",
                  "examples:\n  iflow-memory list --category anti-patterns\n  iflow-memory list --source "
                  "session-capture --json")
    listing.add_argument("--category", choices=CATEGORIES, help="only this category")
    listing.add_argument("--project", help="only entries from this source project")
    listing.add_argument("--source", choices=["retro", "session-capture", "manual", "import"], help="only this source")
    listing.add_argument("--retired", action="store_true",
                         help="list the retired entries instead (out of injection and search; `restore` brings one "
                              "back)")
    listing.add_argument("--json", action="store_true", help=JSON_HELP)

    show = add("show", show_command, "show one memory in full",
               "A retired memory shows when and why it was retired and what replaced it; an id an edit replaced\n"
               "shows the entry it became. Anchors (what each cited file was when it was learned or confirmed)\n"
               "and the history (who changed what, when) follow the entry.\n\n"
               "example:\n  iflow-memory show 1c123aa2533f3d04")
    show.add_argument("id", help=ID_HELP)
    show.add_argument("--json", action="store_true", help=JSON_HELP)

    delete = add("delete", delete_command, "delete one memory", "example:\n  iflow-memory delete 1c123aa2533f3d04")
    delete.add_argument("id", help=ID_HELP)
    delete.add_argument("--json", action="store_true", help=JSON_HELP)

    promote = add("promote", promote_command, "let every project's sessions see one project's memory",
                  "A knowledge bank somebody else committed reaches only its own repository's sessions (ADR 23).\n"
                  "Promoting one of its entries makes it universal: it moves to the global store's markdown and\n"
                  "every project's session start may inject it (`iflow-memory trust` widens a whole bank).\n\n"
                  "example:\n  iflow-memory promote 1c123aa2533f3d04")
    promote.add_argument("id", help=ID_HELP)
    promote.add_argument("--json", action="store_true", help=JSON_HELP)

    stats = add("stats", stats_command, "counts per category, source and project",
                "examples:\n  iflow-memory stats\n  iflow-memory stats --json")
    stats.add_argument("--json", action="store_true", help=JSON_HELP)

    export = add("export", export_command, "write every memory as knowledge-bank markdown",
                 "examples:\n  iflow-memory export --output backup/knowledge-bank\n\n"
                 "  # as a project's bank (copied to restored/docs/knowledge-bank): the live entries come back\n"
                 "  iflow-memory import --project-root restored\n\n"
                 "  # as a store's own markdown (copied into an empty new-store): retired entries, edits and\n"
                 "  # history come back too\n"
                 "  iflow-memory import --global-store new-store")
    export.add_argument("--output", required=True, help="directory for anti-patterns.md, heuristics.md, patterns.md "
                        "and entry-history.md (retired entries whole, edits, confirmations: a store rebuilt from "
                        "it keeps them)")
    export.add_argument("--json", action="store_true", help=JSON_HELP)


ID_HELP = "entry id (16 hex characters) or a unique prefix of at least 4, as `list` shows it"


def _check_search(args: argparse.Namespace) -> None:
    """The search request's rules (the same for the CLI, MCP and the library), before any store is opened."""
    check_query(" ".join(args.query))
    check_limit(args.limit)


def _guard(handler, precheck=None):
    def run(args: argparse.Namespace) -> int:
        if precheck is not None:
            try:
                precheck(args)
            except InvalidEntry as exc:
                return _invalid(exc)
        # These commands store nothing new: a missing store is a mistyped path, never a store to create.
        problem = missing_for_reading(global_store_dir(args.global_store), args.project_root)
        if problem:
            return fail(problem)
        try:
            return handler(args)
        except StorageError as exc:
            return database_failed(exc)
    return run
