"""`iflow-memory embed`, and the registration of `embed` and `doctor` (see commands_doctor)."""

from __future__ import annotations

import argparse
import os

from memory_apps.commands import doctor as commands_doctor
from memory_apps.config import load_config
from memory_apps.formatting import count_of, database_failed, dumps, fail
from memory_apps.commands.progress import ProgressBar
from memory_apps.store_paths import STORE_HELP, global_store_dir, missing_for_reading
from memory_core.errors import StorageError
from memory_core.embedding.space import pinned_space

EXIT_INTERRUPTED = 128 + 2  # what a shell reports for a program ended by SIGINT


def embed_command(args: argparse.Namespace) -> int:
    """Embed every pending entry (or finish a re-embed) with a progress bar; resumable."""
    from memory_apps.wiring.container import build_container
    from memory_apps.upkeep.embedding_jobs import embed_everything

    store_dir = global_store_dir(args.global_store)
    problem = missing_for_reading(store_dir, args.project_root)  # nothing to embed in a store that is not there
    if problem:
        return fail(problem)
    bar = ProgressBar("embedding", enabled=not (args.quiet or args.json))
    done = [0]

    def progress(embedded: int, total: int) -> None:
        done[0] = embedded  # each batch's vectors are committed before it is counted
        bar(embedded, total)

    try:
        container = build_container(load_config(args.project_root), store_dir)
        report, problem = embed_everything(container, progress, args.max)
    except StorageError as exc:
        return database_failed(exc)
    except KeyboardInterrupt:  # Ctrl-C: what was committed stays, and the next run picks up the rest
        bar.close()
        return fail(f"interrupted: {done[0]} embedded; run again to resume", EXIT_INTERRUPTED)
    finally:
        bar.close()
    if report is None:
        return fail(f"nothing embedded: {problem}")  # with --json too: stdout stays empty
    status = 0 if not report.error else 1
    space = pinned_space(container.store())
    target = report.migrating_to or (space.label if space else None)
    if args.json:
        print(dumps({"ok": not report.error, "embedded": report.embedded, "remaining": report.remaining,
                     "space": target, "re_embed_complete": report.promoted, "rate_limited": report.rate_limited,
                     "error": report.error}))
        return status
    if args.quiet:
        return status
    line = f"Embedded {count_of(report.embedded, 'entry', 'entries')} into {target or '?'}; " \
           f"{report.remaining} remaining"
    if report.promoted:
        line += "; re-embed complete, the new space now serves queries"
    if report.rate_limited:
        line += " (stopped: provider rate limit; run `iflow-memory embed` again later to resume)"
    elif report.error:
        line += f" (stopped: {report.error}; run `iflow-memory embed` again to resume)"
    elif report.remaining:
        line += " (run `iflow-memory embed` again to resume)"
    print(line)
    return status


def at_least_one(text: str) -> int:
    """An argparse type: a whole number of at least 1 (argparse reports the message and exits 1)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def add_commands(commands, fmt) -> None:
    """Register `embed` and `doctor` on the CLI's sub-parsers."""
    embed = commands.add_parser(
        "embed", help="embed every entry that has no vector yet (resumable)", formatter_class=fmt,
        description="Embed pending entries with the configured provider, or finish a re-embed after "
                    "memory_embedding_provider changed. Vectors are stored batch by batch: stop it any time "
                    "and run it again to resume.",
        epilog="examples:\n  iflow-memory embed\n  iflow-memory embed --max 50\n  iflow-memory embed --json\n\n"
               "exit status: 0 done, 1 no provider, provider error or invalid input, 2 database error (the same with "
               "--json), 130 interrupted (Ctrl-C; what was embedded is kept)")
    _store_flags(embed)
    embed.add_argument("--max", type=at_least_one, default=None, metavar="N",
                       help="embed at most N entries (N at least 1)")
    embed.add_argument("--quiet", action="store_true", help="no progress bar, no summary")
    embed.add_argument("--json", action="store_true",
                       help="one JSON document on stdout for scripts (ok, embedded, remaining, space, "
                            "re_embed_complete, rate_limited, error); no progress bar; errors stay on stderr, "
                            "same exit status")
    embed.set_defaults(handler=embed_command)
    commands_doctor.add_command(commands, fmt, _store_flags)


def _store_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--project-root", default=os.getcwd(), help="project directory (default: current)")
    parser.add_argument("--global-store", default=None, help=STORE_HELP)
