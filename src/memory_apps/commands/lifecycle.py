"""`iflow-memory review | confirm | retire | restore | edit`: keeping memories true (ADR 26)."""

from __future__ import annotations

import argparse
from typing import Any

from memory_apps.commands.entries import ID_HELP, _guard, _service, _store_flags
from memory_apps.commands.entry_story import located
from memory_apps.formatting import JSON_HELP, count_of, dumps, fail
from memory_core.safety.inert import one_line

STALE_HINT = ("the code they cite changed since they were learned: read it, then `iflow-memory confirm ID` (still "
              "true) or `iflow-memory retire ID` (no longer true)")
DUPLICATE_HINT = ("pairs that say the same thing: `iflow-memory retire ID` one of them, or write one learning that "
                  "replaces it with `iflow-memory write --supersedes ID`")
DONE_KEYS = {"confirm": "confirmed", "retire": "retired", "restore": "restored"}
SUPERSEDED_HINT = "retired as replaced by a later learning: `iflow-memory restore ID` if that was a mistake"


def review_command(args: argparse.Namespace) -> int:
    """List what needs a human: stale citations, near-duplicates, superseded entries."""
    service = _service(args)
    queues = service.review()
    if args.json:
        print(dumps(review_dict(queues)))
        return 0
    print("\n".join(review_lines(queues)))
    return 0


def review_dict(queues: Any) -> dict[str, list]:
    """The review queues as JSON-ready data (the keys `review --json` and MCP review_memory share)."""
    return {
        "stale": [{"id": s.entry.id, "name": one_line(s.entry.name),
                   "references": [{"reference": one_line(a.reference), "state": a.state,
                                   "moved_to": one_line(a.moved_to) if a.moved_to else None} for a in s.states]}
                  for s in queues.stale],
        "near_duplicates": [{"ids": [p.first.id, p.second.id], "names": [one_line(p.first.name), one_line(p.second.name)],
                             "score": round(p.score, 4)} for p in queues.near_duplicates],
        "superseded": [{"id": r.entry.id, "name": one_line(r.entry.name), "superseded_by": r.superseded_by}
                       for r in queues.superseded],
    }


def review_lines(queues: Any) -> list[str]:
    """The review queues for a human: each queue's entries with their ids and marks, and what to run next."""
    if queues.empty():
        return ["Nothing to review: every checked citation is current, no near-duplicates, nothing superseded."]
    lines: list[str] = []
    if queues.stale:
        lines += [f"Stale citations: {count_of(len(queues.stale), 'learning')}; {STALE_HINT}"]
        for stale in queues.stale:
            lines.append(f"  {stale.entry.id}  {one_line(stale.entry.name)}")
            lines += [f"      {one_line(state.note())}" for state in stale.states]
        lines.append("")
    if queues.near_duplicates:
        lines += [f"Near-duplicates: {count_of(len(queues.near_duplicates), 'pair')}; {DUPLICATE_HINT}"]
        for pair in queues.near_duplicates:
            lines.append(f"  {pair.first.id}  {one_line(pair.first.name)}")
            lines.append(f"  {pair.second.id}  {one_line(pair.second.name)}   (similarity {pair.score:.2f})")
        lines.append("")
    if queues.superseded:
        lines += [f"Superseded: {count_of(len(queues.superseded), 'learning')}; {SUPERSEDED_HINT}"]
        lines += [f"  {r.entry.id}  {one_line(r.entry.name)}  -> superseded by {r.superseded_by}"
                  for r in queues.superseded]
        lines.append("")
    return lines[:-1]


def confirm_command(args: argparse.Namespace) -> int:
    """Re-anchor one entry to today's code."""
    return _change(args, "confirm", "Confirmed", "")


def retire_command(args: argparse.Namespace) -> int:
    """Retire one entry (kept, restorable)."""
    return _change(args, "retire", "Retired", "no longer injected or found by search "
                                              "(`iflow-memory restore {id}` brings it back)")


def restore_command(args: argparse.Namespace) -> int:
    """Put one retired entry back."""
    return _change(args, "restore", "Restored", "injected and found by search again")


def edit_command(args: argparse.Namespace) -> int:
    """Change one memory's text; the old id still finds it."""
    from memory_core.errors import InvalidEntry

    changes = edit_changes(args)
    if not changes:
        return fail("nothing to edit: give at least one of --name, --description, --reasoning, --category, "
                    "--reference, --keyword, --confidence, --no-references, --no-keywords")
    service = _service(args)
    found, status = located(service, args.id)
    if found is None:
        return status
    if found.retired is not None:
        return fail(f"{found.entry_id} is retired: restore it first (`iflow-memory restore {found.entry_id}`)")
    try:
        edited = service.edit(found.entry_id, **changes)
    except InvalidEntry as exc:
        return fail(one_line(exc.message) if exc.field == "id" else f"invalid {exc.field}: {one_line(exc.message)}")
    if edited is None:
        return fail(f"no entry with id {one_line(args.id)}")
    if args.json:
        print(dumps({"id": edited.id, "old_id": edited.old_id, "name": one_line(edited.entry.name),
                     "changed": list(edited.changed), "edited": bool(edited.changed)}))
        return 0
    print("\n".join(edit_lines(edited)))
    return 0


def edit_changes(args: argparse.Namespace) -> dict[str, Any]:
    """The fields the flags change (a list flag given replaces the whole list)."""
    changes = {f: getattr(args, f) for f in ("name", "description", "reasoning", "category", "confidence")
               if getattr(args, f) is not None}
    for field, flag, clear in (("references", "reference", "no_references"), ("keywords", "keyword", "no_keywords")):
        if getattr(args, clear):
            changes[field] = []
        elif getattr(args, flag):
            changes[field] = list(getattr(args, flag))
    return changes


def edit_lines(edited: Any) -> list[str]:
    """What an edit did, for a human."""
    name = one_line(edited.entry.name)
    if not edited.changed:
        return [f"Nothing to change: {edited.id} — {name} already says that."]
    fields = ", ".join(edited.changed)
    if edited.id == edited.old_id:
        return [f"Edited {edited.id} — {name}: {fields}."]
    return [f"Edited {edited.old_id} -> {edited.id} — {name}: {fields}.",
            "The new description gives it a new id; the old one still finds it "
            f"(`iflow-memory show {edited.old_id}`)."]


def _change(args: argparse.Namespace, action: str, done: str, effect: str) -> int:
    service = _service(args)
    found, status = located(service, args.id)
    if found is None:
        return status
    if (found.retired is None) != (action != "restore"):
        state = "retired" if found.retired is not None else "not retired"
        verb = "restore it first" if action != "restore" else "nothing to restore"
        return fail(f"{found.entry_id} is {state}: {verb}")
    arguments = (found.entry_id, args.reason or "") if action == "retire" else (found.entry_id,)
    entry = getattr(service, action)(*arguments)
    if entry is None:
        return fail(f"no entry with id {one_line(args.id)}")
    if args.json:
        data = {"id": entry.id, "name": one_line(entry.name), DONE_KEYS[action]: True}
        if action == "confirm":
            data["anchors"] = [a.to_dict() for a in entry.anchors]
            data.update(anchored=entry.anchored, cited=entry.cited, still_gone=[
                {"reference": one_line(s.reference), "moved_to": one_line(s.moved_to) if s.moved_to else None}
                for s in entry.gone], message=entry.summary())
        print(dumps(data))
        return 0
    said = entry.summary() if action == "confirm" else effect.format(id=entry.id)
    print(f"{done} {entry.id} — {one_line(entry.name)}: {said}")
    return 0


def add_commands(commands, fmt) -> None:
    """Register review, confirm, retire, restore and edit on the CLI's sub-parsers."""
    def add(name, handler, help_text, epilog):
        parser = commands.add_parser(name, help=help_text, description=help_text[0].upper() + help_text[1:] + ".",
                                     epilog=epilog + "\n\nexit status: 0 ok, 1 not found or invalid input, "
                                     "2 database error", formatter_class=fmt)
        _store_flags(parser)
        parser.add_argument("--json", action="store_true", help=JSON_HELP)
        parser.set_defaults(handler=_guard(handler))
        return parser

    add("review", review_command, "list the memories that need a human",
        "Three queues: learnings whose cited code moved, changed or is gone since they were learned (checked\n"
        "in this project only), pairs of learnings that say the same thing, and learnings a later one\n"
        "superseded. Each line names the id the next command takes: `confirm ID` (still true), `retire ID`\n"
        "(no longer true), `write --supersedes ID` (a corrected learning replaces it), `restore ID` (a\n"
        "retirement was a mistake). --json: stale [{id, name, references [{reference, state, moved_to}]}],\n"
        "near_duplicates [{ids, names, score}], superseded [{id, name, superseded_by}].\n\n"
        "examples:\n  iflow-memory review\n  iflow-memory review --json")
    confirm = add("confirm", confirm_command, "say a memory is still true of today's code",
                  "Re-anchors the learning's citations to the files as they are now, so it is no longer marked\n"
                  "stale. A cited file that is gone keeps its old anchor, and its mark: the output says where it\n"
                  "went when git knows; supersede the learning with the new path (`write --supersedes ID`) or\n"
                  "retire it. Recorded in its history. --json: id, name, anchors, anchored, cited, still_gone.\n\n"
                  "example:\n  iflow-memory confirm 1c123aa2533f3d04")
    confirm.add_argument("id", help=ID_HELP)
    retire = add("retire", retire_command, "take a memory out of injection and search",
                 "The learning is kept, with its history, and `iflow-memory restore ID` brings it back; `list\n"
                 "--retired` lists the retired ones, `show ID` says when and why. Its block leaves the store's\n"
                 "markdown and, when a tool wrote it there, the project's docs/knowledge-bank (so a teammate's\n"
                 "import does not bring it back); a block you wrote in the bank by hand stays as written.\n"
                 "Writing its text again is refused until it is restored. --json: id, name, retired.\n\n"
                 "example:\n  iflow-memory retire 1c123aa2533f3d04 --reason 'the CSV reader was replaced'")
    retire.add_argument("id", help=ID_HELP)
    retire.add_argument("--reason", default="", help="why, kept in the history and shown by `show`")
    restore = add("restore", restore_command, "bring a retired memory back",
                  "The learning is injected and found by search again, with its counts and history (its vector\n"
                  "is embedded again). `list --retired` lists the retired ones. --json: id, name, restored.\n\n"
                  "example:\n  iflow-memory restore 1c123aa2533f3d04")
    restore.add_argument("id", help=ID_HELP + "; a retired one")
    add_edit_command(add)


def add_edit_command(add) -> None:
    """Register `edit` (with the add function of `add_commands`)."""
    from memory_core.entries.records import CATEGORIES

    edit = add("edit", edit_command, "change a memory's text",
               "Only the fields given change; each is checked as `write` checks it, and secrets are redacted. A\n"
               "new description gives the memory a new id (its content hash): the old id still finds it (`show\n"
               "OLD`), and its counts, dates and history stay. The history records an `edited` event (who, which\n"
               "fields, the old text); the store's markdown is updated. A reference the edit adds is anchored to\n"
               "today's code. A memory imported from a knowledge bank you write by hand is not edited here: the\n"
               "message names the bank file to edit, and the next import updates the memory. A retired memory\n"
               "must be restored first. --json: id, old_id, name, changed (the fields), edited.\n\n"
               "examples:\n  iflow-memory edit 1c123aa2533f3d04 --name 'Quote CSV fields with the csv module'\n"
               "  iflow-memory edit 1c12 --description 'Let the csv module quote fields; never join by hand.'\n"
               "  iflow-memory edit 1c12 --reference src/csv_out.py --reference src/quote.py --confidence high\n"
               "  iflow-memory edit 1c12 --category anti-patterns --keyword csv --keyword quoting --json")
    edit.add_argument("id", help=ID_HELP + " (an edited memory's old id finds it too)")
    edit.add_argument("--name", help="the new name (one line)")
    edit.add_argument("--description", help="the new description (the learning itself)")
    edit.add_argument("--reasoning", help="the new reasoning ('' clears it)")
    edit.add_argument("--category", choices=CATEGORIES, help="the new category")
    edit.add_argument("--confidence", choices=["high", "medium", "low"], help="the new confidence")
    edit.add_argument("--reference", action="append", default=[],
                      help="a file it cites (path, path:line or path#symbol); repeat it: the list given replaces the "
                           "old one")
    edit.add_argument("--keyword", action="append", default=[],
                      help="a keyword; repeat it: the list given replaces the old one")
    edit.add_argument("--no-references", action="store_true", help="cite no file any more")
    edit.add_argument("--no-keywords", action="store_true", help="drop every keyword")
