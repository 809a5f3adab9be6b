"""Retro writer: `python -m memory_apps.writer --action upsert --global-store G --entry-json J|--entry-file F`.

Exit codes: 0 stored, 1 invalid entry (the message names the field), 2 database error.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from typing import Any, Optional, Sequence

from memory_apps.formatting import EXIT_DATABASE, EXIT_INVALID, database_failed, fail
from memory_apps.store_paths import STORE_HELP
from memory_core.safety.inert import one_line

EXIT_OK = 0
MAX_ENTRY_BYTES = 256 * 1024
MAX_GIT_REFERENCES = 20
GIT_REFERENCES_TIMEOUT_S = 2.0
EPILOG = """examples:
  python -m memory_apps.writer --action upsert --global-store ~/.claude/iflow/memory \\
      --entry-json '{"name": "Read before parsing", "description": "Read real files before writing a parser.",
                     "reasoning": "Assumed formats cost 5 review iterations.", "category": "patterns",
                     "keywords": ["parser", "file-format"], "references": ["src/parser.py"]}'
  iflow-memory write --entry-file entry.json
  iflow-memory write --entry-file entry.json --merge-into 1c123aa2  # reinforce the learning it repeats

entry fields: name, description, category (anti-patterns|patterns|heuristics) are required;
reasoning, keywords, references, confidence (high|medium|low), source (retro|session-capture|manual|import),
source_project are optional. The id is the content hash of the description; writing the same
description again reinforces the entry (observation count +1). A stored learning that says the same in other
words is reported on stderr ("similar to ID — name"); the entry is stored all the same, unless --merge-into ID
reinforces that learning instead. --supersedes ID stores the learning and retires the one it replaces (kept
with its history; `show ID` names the replacement). A retired learning's description written again, or
--merge-into a retired ID, is refused and nothing is stored (`iflow-memory restore ID` brings that learning
back); the description an edit replaced reinforces the learning it became.

references: an entry without references gets up to 20 files its feature branch changed (git diff against the
merge base with the default branch; files the entry's text names come first); a repeat without references of its
own keeps those already stored. Each cited file is anchored (its git blob, and the cited region) when first
cited; files a repeat or --merge-into adds are anchored then, and the anchors already taken stay.

exit status: 0 stored, 1 invalid entry (a retired learning's text, no entry ID to merge into), 2 database
error."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags shared by `python -m memory_apps.writer` and `iflow-memory write`."""
    parser.add_argument("--action", choices=["upsert"], default="upsert", help="what to do (only: upsert)")
    parser.add_argument("--global-store", default=None, help=STORE_HELP)
    parser.add_argument("--project-root", default=os.getcwd(),
                        help="project whose settings and git branch apply (default: current)")
    parser.add_argument("--no-references-from-git", dest="references_from_git", action="store_false",
                        help="do not fill a missing references list from the project's feature branch (default: "
                             f"up to {MAX_GIT_REFERENCES} files the branch changed, git given "
                             f"{GIT_REFERENCES_TIMEOUT_S:g} s at most)")
    parser.add_argument("--supersedes", metavar="ID", default=None,
                        help="the id (or a unique prefix) of a learning this one replaces: it is retired, pointing "
                             "to the new one (`show ID` says so; `restore ID` undoes it)")
    parser.add_argument("--merge-into", metavar="ID", default=None,
                        help="reinforce this stored learning (id or unique prefix) instead of storing the entry: one "
                             "more observation, the entry's references added, a `merged` event in its history; "
                             "use it when the write reports the entry as similar to ID (a retired ID is refused: "
                             "`iflow-memory restore ID` first)")
    parser.add_argument("--json", action="store_true",
                        help="print the result as JSON: id, name, created, observation_count, merged, "
                             "superseded (the id --supersedes retired, else null), near_duplicates [{id, name, "
                             "score}]")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--entry-json", help="the entry as a JSON object")
    source.add_argument("--entry-file", help="path to a file holding the entry as a JSON object ('-' = stdin)")


class _Parser(argparse.ArgumentParser):
    """Usage errors exit 1 (invalid input), keeping 2 for database errors."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_INVALID, f"{self.prog}: error: {message}\n")


PROG = "python -m memory_apps.writer"  # argparse would say `writer.py`, which nobody can run


def build_parser(prog: Optional[str] = PROG) -> argparse.ArgumentParser:
    """The writer's argument parser."""
    parser = _Parser(
        prog=prog, description="Store one learning in the memory database.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser)
    parser.set_defaults(tool="writer")  # `iflow-memory write` is the cli's: history names which one changed what
    return parser


class InvalidInput(Exception):
    """The entry could not be read or failed validation."""


def read_entry(args: argparse.Namespace) -> dict[str, Any]:
    """Load the entry JSON from --entry-json or --entry-file."""
    try:
        if args.entry_json is not None:
            text = args.entry_json
        elif args.entry_file == "-":
            text = sys.stdin.read()
        else:
            with open(args.entry_file, encoding="utf-8") as handle:
                text = handle.read()
    except OSError as exc:
        raise InvalidInput(f"cannot read entry file {args.entry_file}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"entry file {args.entry_file} is not UTF-8 text (byte {exc.start})") from exc
    if len(text) > MAX_ENTRY_BYTES:
        raise InvalidInput(f"entry is larger than {MAX_ENTRY_BYTES // 1024} KiB")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"entry is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from exc
    except (RecursionError, ValueError) as exc:
        raise InvalidInput(f"entry JSON cannot be read: {type(exc).__name__}") from exc
    if not isinstance(data, dict):
        raise InvalidInput("entry must be a JSON object")
    data.setdefault("source", "retro")
    return data


def describe_validation_error(exc: Exception) -> str:
    """One line per bad field, e.g. `category: Input should be 'anti-patterns', ...` (secrets redacted)."""
    from memory_core.safety.redaction import redact_secrets

    lines = []
    for error in exc.errors():  # type: ignore[attr-defined]
        where = ".".join(str(p) for p in error["loc"]) or "entry"
        message = "unknown field" if error["type"] == "extra_forbidden" else error["msg"]
        lines.append(f"{where}: {message}")
    return redact_secrets("; ".join(lines))


def write(args: argparse.Namespace) -> int:
    """Validate, upsert and confirm; returns the exit code."""
    from pydantic import ValidationError

    from memory_apps.config import load_config
    from memory_apps.upkeep.opening import keep_snapshot, open_store_recovering
    from memory_apps.wiring.container import build_container
    from memory_apps.upkeep.embedding_jobs import embed_after_write
    from memory_apps.store_paths import global_store_dir, missing_project
    from memory_apps.wiring.lifecycle import actor
    from memory_core.errors import InvalidEntry, StorageError
    from memory_core.entries.models import EntryDraft

    if args.supersedes and args.merge_into:
        return fail("--supersedes and --merge-into exclude each other: a learning either replaces one or "
                    "reinforces one")
    try:
        draft = EntryDraft.model_validate(read_entry(args))
    except InvalidInput as exc:
        return fail(f"invalid entry: {exc}")
    except ValidationError as exc:
        return fail(f"invalid entry: {describe_validation_error(exc)}")
    problem = missing_project(args.project_root)  # the markdown copy goes under it: never create a project
    if problem:
        return fail(problem)
    if args.references_from_git and not draft.references:
        draft = with_git_references(draft, args.project_root)
    global_store = global_store_dir(args.global_store)
    settings = load_config(args.project_root)
    if not settings.semantic_enabled:
        if args.supersedes or args.merge_into:
            flag = "--supersedes" if args.supersedes else "--merge-into"
            return fail(f"{flag} needs the database (memory_semantic_enabled is false in the settings)")
        return _markdown_only(draft, global_store, args.project_root, args.json)
    superseded = None
    try:
        # One model for the near-duplicate search and the embedding after the write: loaded once.
        container = build_container(settings, global_store, project_root=args.project_root, full_check=True,
                                    keep_models=True)
        open_store_recovering(container, args.project_root, global_store)
        target, problem = _merge_target(container, args.merge_into)
        if problem:
            return fail(problem)
        remember = container.remember()
        if args.supersedes:
            superseded = _supersede(container, draft, args.supersedes, getattr(args, "tool", "cli"))
            if isinstance(superseded, int):
                return superseded
            stored = superseded.remembered
        else:
            stored = remember.run(draft, merge_into=target, actor=actor(getattr(args, "tool", "cli")))
        embed_after_write(container, [stored.entry_id])
        keep_snapshot(container)
    except InvalidEntry as exc:  # a retired learning's text, or the entry to merge into went away
        return fail(one_line(exc.message))
    except StorageError as exc:
        return database_failed(exc)
    if remember.audit_problem:
        print(f"iflow-memory: {remember.audit_problem}", file=sys.stderr)
    if superseded is not None:  # the learning it replaces is no near-duplicate to report
        from dataclasses import replace

        stored = replace(stored, near_duplicates=[n for n in stored.near_duplicates
                                                  if n.entry_id != superseded.old_id])
    report_stored(stored, args.json, superseded.old_id if superseded is not None else None)
    if superseded is not None:  # on stderr under --json: stdout holds one JSON document
        print(f"Superseded: {superseded.old_id} — {one_line(superseded.old_name)} (retired; "
              f"`iflow-memory show {superseded.old_id}` says what replaced it)", file=sys.stderr if args.json else sys.stdout)
    return EXIT_OK


def _supersede(container, draft, text: str, tool: str):
    """Store the draft and retire the entry `text` names (a Superseded), or an exit status after saying why not."""
    from memory_apps.wiring.lifecycle import actor
    from memory_core.errors import InvalidEntry
    from memory_core.usecases.lifecycle.locate import locate
    from memory_core.usecases.retired_refusal import RetiredLearning

    store = container.store()
    try:
        found = locate(store, store, text)
        if found is None:
            return fail(f"no entry with id {one_line(text)} (--supersedes)")
        if found.entry is None:
            return fail(f"{found.entry_id} is retired already (--supersedes); `iflow-memory restore "
                        f"{found.entry_id}` first")
        result = container.supersede().run(draft, found.entry_id, actor(tool))
    except RetiredLearning as exc:  # the new text is a retired learning's: nothing stored, nothing retired
        return fail(one_line(exc.message))
    except InvalidEntry as exc:
        return fail(f"invalid {exc.field}: {one_line(exc.message)}")
    if result.audit_problem:
        print(f"iflow-memory: {result.audit_problem}", file=sys.stderr)
    return result


def _merge_target(container, text: Optional[str]) -> tuple[Optional[str], str]:
    """(the full id `--merge-into` names, "") or (None, why not); (None, "") without the flag."""
    from memory_core.errors import InvalidEntry
    from memory_core.usecases.lifecycle.locate import locate
    from memory_core.usecases.retired_refusal import RetiredLearning

    if text is None:
        return None, ""
    store = container.store()
    try:
        found = locate(store, store, text)  # retired ones too: "no entry" would hide that restore brings it back
    except InvalidEntry as exc:  # malformed, or a prefix several entries share
        return None, f"invalid --merge-into: {one_line(exc.message)}"
    if found is None:
        return None, f"no entry with id {one_line(text)}"
    if found.retired is not None:
        return None, f"cannot merge into {RetiredLearning('merge_into', found.retired).message}"
    return found.entry_id, ""


def report_stored(stored, as_json: bool, superseded: Optional[str] = None) -> None:
    """What the write did, on stdout (`superseded`: the id it retired, under --json); each near-duplicate, with
    the flag that merges into it, on stderr."""
    for near in stored.near_duplicates:  # advice: the entry is stored all the same
        print(f"iflow-memory: similar to {near.entry_id} — {one_line(near.name)} (score {near.score:.2f})",
              file=sys.stderr)
    if stored.near_duplicates:
        hint = (f"stored as {stored.entry_id} all the same; to reinforce an existing learning instead, delete "
                f"{stored.entry_id} and write again with --merge-into ID" if stored.created else
                "to reinforce an existing learning instead, write with --merge-into ID")
        print(f"iflow-memory: {hint}", file=sys.stderr)
    if as_json:
        print(json.dumps({"id": stored.entry_id, "name": one_line(stored.name), "created": stored.created,
                          "observation_count": stored.observation_count, "merged": stored.merged,
                          "superseded": superseded,
                          "near_duplicates": [{"id": n.entry_id, "name": one_line(n.name), "score": n.score}
                                              for n in stored.near_duplicates]}))
    elif stored.merged:
        print(f"Merged into: {one_line(stored.name)} (id: {stored.entry_id}), now observed "
              f"{stored.observation_count} times")
    else:
        print(f"Stored: {one_line(stored.name)} (id: {stored.entry_id})")


_WORDS = re.compile(r"[\w./-]+")


def mentioned_first(paths: Sequence[str], text: str) -> list[str]:
    """The paths, those whose path or file name the text mentions first, otherwise in the given order."""
    words = {word.rstrip(".") for word in _WORDS.findall(text)}
    names = {word.rsplit("/", 1)[-1] for word in words}
    return sorted(paths, key=lambda path: path not in words and path.rsplit("/", 1)[-1] not in names)


def references_from_git(project_root: str, text: str) -> list[str]:
    """Up to 20 files the feature branch changed, those `text` mentions first; secret-looking paths left out."""
    from memory_apps.wiring.adapter_functions import feature_branch_files
    from memory_core.session.deadline import Deadline, MonotonicTicker
    from memory_core.entries.models import MAX_REFERENCE_LENGTH
    from memory_core.safety.redaction import contains_secret

    deadline = Deadline.after(MonotonicTicker(), GIT_REFERENCES_TIMEOUT_S)
    references: list[str] = []
    for path in mentioned_first(feature_branch_files(project_root, deadline), text):
        if len(references) == MAX_GIT_REFERENCES:
            break
        if len(path) <= MAX_REFERENCE_LENGTH and not contains_secret(path):  # dropped, not stored redacted
            references.append(path)
    return references


def with_git_references(draft, project_root: str):
    """The draft with references from the feature branch's diff, validated like the caller's own."""
    from pydantic import ValidationError

    from memory_core.entries.models import EntryDraft

    found = references_from_git(project_root, "\n".join((draft.name, draft.description, draft.reasoning)))
    if not found:
        return draft
    try:
        checked = EntryDraft.model_validate({**draft.model_dump(), "references": found})
    except ValidationError:
        return draft
    # Not counted as given: reinforcing a stored entry keeps the references it has (merge.reinforced).
    return EntryDraft.model_construct(_fields_set=draft.model_fields_set - {"references"}, **dict(checked))


def _markdown_only(draft, global_store: str, project_root: str, as_json: bool = False) -> int:
    """memory_semantic_enabled: false — write the markdown files only, no database (spec 001 D9.6)."""
    from memory_apps.wiring.adapter_functions import make_store_private
    from memory_apps.wiring.resolver import plain_wiring
    from memory_core.entries.records import Entry

    wiring = plain_wiring(global_store, project_root)
    entry = Entry.from_draft(draft, wiring.clock().now())
    notice = make_store_private(global_store)
    if notice:
        print(f"iflow-memory: {notice}", file=sys.stderr)
    try:
        wiring.audit_trail().record(entry, increment=True)
    except OSError as exc:
        return fail(f"cannot write markdown: {exc}", EXIT_DATABASE)
    if as_json:  # no database: neither whether it was new nor its count is known here, nor any neighbour
        print(json.dumps({"id": entry.id, "name": one_line(entry.name), "created": None, "observation_count": None,
                          "merged": False, "superseded": None, "near_duplicates": []}))
        return EXIT_OK
    print(f"Stored: {one_line(entry.name)} (id: {entry.id})")
    return EXIT_OK


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of `python -m memory_apps.writer`."""
    return write(build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
